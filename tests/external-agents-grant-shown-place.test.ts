import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import type { ApprovalRecord } from '../src/contracts/approval.ts'
import { consentAction } from '../src/main/core/consent-action.ts'
import { canonicalAction } from '../src/runtime/domain/approval.ts'
import type {
  ExternalActionRequest,
  ExternalDecision,
  ExternalFileChange,
} from '../src/runtime/external-agents/external-agent-port.ts'
import { grantScopeFor } from '../src/runtime/agent/grant-scope.ts'
import { AGENT_COMMAND_UNCONTAINED } from '../src/runtime/policy/agent-grant-scope.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  askerWorldInTempWorkspace,
  codexRequest,
  type ExternalAskerWorld,
} from '../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../src/runtime/test-support/sqlite-stores.ts'

/**
 * An "Always allow" remembers where the window showed the
 * request acts, never where a name leads at the click. The window of an
 * external agent's change to a plain file (no link, so no "Which leads
 * to" row) shows only that file; if the agent, which runs commands in the
 * workspace, swaps the name for a link while the person reads, the allow
 * itself is refused (`target_changed`), but the grant the allow-always
 * writes must still be for the file (or folder) the person saw, not for
 * wherever the name leads now.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 5))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

let root: string
let workspace: string
let world: ExternalAskerWorld
let dispose: () => void

beforeEach(() => {
  ;({ root, workspace, world, dispose } = askerWorldInTempWorkspace(
    'assent-grant-shown-',
    MAC,
    AGENT,
  ))
  mkdirSync(join(workspace, 'src'), { recursive: true })
  mkdirSync(join(workspace, 'build'))
  mkdirSync(join(workspace, 'deploy'))
  writeFileSync(join(workspace, 'plain.txt'), 'one\ntwo\n')
  writeFileSync(join(workspace, 'src', 'app.ts'), 'export const secret = 1\n')
})

afterEach(() => dispose())

const live = () => new AbortController().signal
const pending = () => world.stores.approvals.listByRoom(ROOM_ID).find((a) => a.status === 'pending')
const grantPaths = () => world.stores.grants.listActive(ROOM_ID).map((grant) => grant.path)

async function asked(
  request: ExternalActionRequest,
  look: (approval: ApprovalRecord) => void,
  decision: 'deny' | 'allow-once' | 'allow-always',
): Promise<ExternalDecision> {
  const { asker } = world.askerUnder(policyForMode('ask-for-approval'))
  const answer = asker.ask(request, live())
  await expect.poll(pending).toBeDefined()
  const approval = pending()!
  try {
    look(approval)
  } finally {
    await world.gate.decide({ approvalId: approval.id, decision, decidedBy: 'user' })
  }
  return answer
}

const edit = (file: string): ExternalFileChange => ({
  path: join(workspace, file),
  change: 'update',
  movePath: null,
  diff: '@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n',
  oldText: null,
  newText: null,
})

/** Swaps `name` for a link to `target`, as the agent's own command could. */
function swapForLink(name: string, target: string) {
  renameSync(join(workspace, name), join(root, `${name.replaceAll('/', '_')}.moved`))
  symlinkSync(target, join(workspace, name))
}

describe('an "Always allow" clicked after a plain name was swapped for a link', () => {
  it('of a file change remembers the file the window showed, not where the name leads at the click', async () => {
    const app = join(workspace, 'src', 'app.ts')
    const answer = await asked(
      codexRequest({ kind: 'file-changes', changes: [edit('plain.txt')] }),
      (approval) => {
        // What the window shows: plain.txt, nothing beside it.
        expect(consentAction(canonicalAction(approval))).toMatchObject({
          type: 'agent-file-changes',
          changes: [{ path: join(workspace, 'plain.txt') }],
        })
        expect(JSON.stringify(approval.arguments)).not.toContain(app)
        swapForLink('plain.txt', app)
      },
      'allow-always',
    )
    // The allow itself is refused: the name leads elsewhere now.
    expect(answer).toBe('deny')
    // The grant must not be for a file the window never named.
    expect(grantPaths()).not.toContain(app)

    // What that grant would do: the agent's next change to src/app.ts is
    // answered without asking anyone.
    const { asker } = world.askerUnder(policyForMode('ask-for-approval'))
    const later = asker.ask(
      codexRequest({
        kind: 'file-changes',
        changes: [
          {
            path: app,
            change: 'update',
            movePath: null,
            diff: '@@ -1 +1 @@\n-export const secret = 1\n+export const secret = 2\n',
            oldText: null,
            newText: null,
          },
        ],
      }),
      live(),
    )
    const opened = await Promise.race([
      later.then(() => false),
      expect
        .poll(pending)
        .toBeDefined()
        .then(() => true),
    ])
    if (opened) {
      await world.gate.decide({ approvalId: pending()!.id, decision: 'deny', decidedBy: 'user' })
    }
    expect(opened).toBe(true)
  })

  it("of a command remembers nothing, whatever its folder: the agent runs it outside Assent's sandbox", async () => {
    const request = codexRequest({
      kind: 'command',
      commandLine: 'make install',
      argv: null,
      cwd: join(workspace, 'build'),
    })
    const answer = await asked(
      request,
      (approval) => {
        expect(grantScopeFor(approval)).toEqual({ ok: false, reason: AGENT_COMMAND_UNCONTAINED })
      },
      'deny',
    )
    expect(answer).toBe('deny')
    expect(grantPaths()).toEqual([])
  })
})
