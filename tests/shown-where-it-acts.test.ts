import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approvalConsentView } from '../src/main/core/approval-consent-view.ts'
import type { AgentContext, AgentModel, AgentStep } from '../src/runtime/agent/agent-model.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide, roomGrants, waitForPendingApproval } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * What the protected window says an action acts on is where it acts: a
 * link in the workspace (`cache` -> `data`, `notes.txt` -> a file outside)
 * is shown as where it leads, a command's relative folder as the real
 * folder it runs in, and an "Always allow" of a delete remembers the file
 * the window showed. Main draws only what the runtime bound into the
 * action; it never works a path out of the typed one.
 */

/** A model whose one call the test sets, then replies. */
class OneCall implements AgentModel {
  call: { tool: string; arguments: Record<string, unknown> } = { tool: 'list_dir', arguments: {} }
  async next(context: AgentContext): Promise<AgentStep> {
    if (context.outcomes.length > 0) return { type: 'reply', text: 'done' }
    return { type: 'act', say: 'go', actions: [{ type: 'tool', call: this.call }] }
  }
}

const DISPLAY = {
  promptId: 'p',
  roomLabel: 'r',
  agentLabel: 'a',
  lang: 'en' as const,
  theme: 'light' as const,
  enableDelayMs: 600,
}

describe('where the protected window says an action acts', () => {
  let harness: RuntimeHarness
  let workspace: string
  let outside: string
  const model = new OneCall()
  beforeAll(async () => {
    harness = await startInProcessRuntime({ model })
    workspace = realpathSync(harness.workspace)
    outside = join(realpathSync(harness.root), 'elsewhere')
    mkdirSync(outside, { recursive: true })
    writeFileSync(join(outside, 'private.txt'), 'outside\n')
    symlinkSync(join(outside, 'private.txt'), join(workspace, 'notes.txt'))
    mkdirSync(join(workspace, 'data'))
    writeFileSync(join(workspace, 'data', 'db.sqlite'), 'rows\n')
    symlinkSync(join(workspace, 'data'), join(workspace, 'cache'))
    mkdirSync(join(workspace, 'src'))
    symlinkSync(join(workspace, 'src'), join(workspace, 'scratch'))
  })
  afterAll(async () => harness?.close())

  /** The window's action for `call`, asked in a fresh room; the approval is
   *  then decided `decision`. */
  async function shownFor(
    call: OneCall['call'],
    decision: 'deny' | 'allow-always' = 'deny',
  ): Promise<{ action: Record<string, unknown>; roomId: string }> {
    model.call = call
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'go')
    const view = await waitForPendingApproval(harness, room.id, turnId)
    const consent = approvalConsentView(view, DISPLAY)
    if (consent.subject !== 'approval') throw new Error('not an approval')
    expect((await decide(harness, view, decision)).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    return { action: consent.action as Record<string, unknown>, roomId: room.id }
  }

  it.each([
    [
      'a read through a link to a file outside',
      'read_file',
      'notes.txt',
      () => join(outside, 'private.txt'),
    ],
    [
      'a write through a linked folder',
      'write_file',
      'cache/new.txt',
      () => join(workspace, 'data', 'new.txt'),
    ],
    [
      'a delete through a linked folder',
      'delete_file',
      'cache/db.sqlite',
      () => join(workspace, 'data', 'db.sqlite'),
    ],
  ])('%s: shown as where it leads', async (_name, tool, typed, real) => {
    const args: Record<string, unknown> = { path: typed }
    if (tool === 'write_file') args.content = 'x'
    const { action } = await shownFor({ tool, arguments: args })
    expect(action).toMatchObject({ path: typed, absolutePath: real() })
  })

  it.each([
    ['a relative folder', 'src', () => join(workspace, 'src')],
    ['a folder that is a link', 'scratch', () => join(workspace, 'src')],
  ])("a command's %s: shown as the real folder it runs in", async (_name, cwd, real) => {
    const { action } = await shownFor({ tool: 'run_command', arguments: { argv: ['true'], cwd } })
    expect(action).toMatchObject({ type: 'command', directory: real() })
  })

  it('an "Always allow" of a delete through a link remembers the file the window showed', async () => {
    const { action, roomId } = await shownFor(
      { tool: 'delete_file', arguments: { path: 'cache/db.sqlite' } },
      'allow-always',
    )
    const grants = await roomGrants(harness, roomId)
    expect(grants.map((grant) => grant.path)).toEqual([action.absolutePath])
  })
})
