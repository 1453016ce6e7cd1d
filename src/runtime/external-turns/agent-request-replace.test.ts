import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ExternalActionRequest } from '../external-agents/external-agent-port.ts'
import { codexRequest } from '../test-support/external-asker.ts'
import { currentContentsFor, shownAgentRequest } from './agent-request-action.ts'

// A new file over a file that is there replaces it, whichever agent sends
// it (claude-agent-acp's Write: no old text; Codex's `*** Add File`: the
// content as its diff): shown as the change from what is there, never as a
// file added.

let ws: string
beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-replace-')))
})
afterEach(() => rmSync(ws, { recursive: true, force: true }))

const agent = { id: 'claude', name: 'Claude', protocol: 'acp' as const }
/** An ACP agent's request: Codex's shape with the protocol changed. */
const acpRequest = (action: ExternalActionRequest['action']): ExternalActionRequest => ({
  ...codexRequest(action),
  protocol: 'acp',
})
const written = (file: string) =>
  acpRequest({
    kind: 'file-changes',
    changes: [
      { path: file, change: 'add', movePath: null, diff: null, oldText: null, newText: 'new\n' },
    ],
  })

/** The one change the window shows for writing `file`. */
async function shownChange(file: string): Promise<Record<string, unknown> | undefined> {
  const request = written(file)
  const shown = shownAgentRequest(request, agent, ws, await currentContentsFor(request))
  if (!('shown' in shown)) throw new Error('refused')
  const { changes } = shown.shown.action.arguments as { changes: Array<Record<string, unknown>> }
  return changes[0]
}

describe("an ACP agent's new file over one that exists", () => {
  it('is shown as the change from what is there', async () => {
    const file = path.join(ws, 'a.txt')
    writeFileSync(file, 'kept by the person\n')
    const change = await shownChange(file)
    expect(change).toMatchObject({ path: file, change: 'update' })
    expect(JSON.stringify(change?.preview)).toContain('kept by the person')
  })

  it('is shown as added where nothing is there', async () => {
    const file = path.join(ws, 'b.txt')
    expect(await shownChange(file)).toMatchObject({ path: file, change: 'add' })
  })

  it('is refused where what is there cannot be shown', async () => {
    const file = path.join(ws, 'big.bin')
    writeFileSync(file, Buffer.alloc(3 * 1024 * 1024, 1))
    const request = written(file)
    expect(shownAgentRequest(request, agent, ws, await currentContentsFor(request))).toEqual({
      refused: { code: 'external.tooLarge' },
    })
  })
})

describe("Codex's added file over one that exists", () => {
  const added = (file: string): ExternalActionRequest =>
    codexRequest({
      kind: 'file-changes',
      changes: [
        { path: file, change: 'add', movePath: null, diff: 'new\n', oldText: null, newText: null },
      ],
    })
  const codex = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' as const }

  it('is shown, summed up and judged as the edit that replaces what is there', async () => {
    const file = path.join(ws, 'keep.txt')
    writeFileSync(file, 'precious one\nprecious two\n')
    const request = added(file)
    const shown = shownAgentRequest(request, codex, ws, await currentContentsFor(request))
    if (!('shown' in shown)) throw new Error('refused')
    const { changes } = shown.shown.action.arguments as { changes: Array<Record<string, unknown>> }
    expect(changes[0]).toMatchObject({ path: file, change: 'update' })
    const lines = JSON.stringify(changes[0]?.preview)
    expect(lines).toContain('{"op":"remove","text":"precious one"}')
    expect(lines).toContain('{"op":"remove","text":"precious two"}')
    expect(lines).toContain('{"op":"add","text":"new"}')
    expect(shown.shown.action.summary).toBe(`Edit ${file}`)
    // What the reviewer and the policy table judge: an edit in place, as
    // an edit of the file by a diff would be, never a file added.
    expect(shown.shown).toMatchObject({ effect: 'write', destructive: false })
  })

  it('is shown as added where nothing is there', async () => {
    const file = path.join(ws, 'fresh.txt')
    const request = added(file)
    const shown = shownAgentRequest(request, codex, ws, await currentContentsFor(request))
    if (!('shown' in shown)) throw new Error('refused')
    const { changes } = shown.shown.action.arguments as { changes: Array<Record<string, unknown>> }
    expect(changes[0]).toMatchObject({ path: file, change: 'add' })
  })

  it('is refused where what is there cannot be shown', async () => {
    const file = path.join(ws, 'big.bin')
    writeFileSync(file, Buffer.alloc(3 * 1024 * 1024, 1))
    const request = added(file)
    expect(shownAgentRequest(request, codex, ws, await currentContentsFor(request))).toEqual({
      refused: { code: 'external.tooLarge' },
    })
  })
})
