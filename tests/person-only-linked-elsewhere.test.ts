import { randomUUID } from 'node:crypto'
import { AGENT_COMMAND_TOOL, AGENT_TOOL_CALL_TOOL } from '../src/contracts/agent-request.ts'
import type { ApprovalSummary } from '../src/contracts/approval.ts'
import { link, mkdir, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mcpTouch, personOnlyReason, type ActionTouch } from '../src/runtime/policy/person-only.ts'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import {
  agentCommandRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { openGatewayCall, shellToolRequest } from './support/gateway-call-request.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  denyAndSettle,
  layPersonOnlyWorkspace,
  ORIGINAL,
  putApproverWebhook,
  reviewedApproval,
  turnOutcome,
} from './support/person-only-table.ts'
import { decide, roomGrants, setMode } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A file only a person may change that has another name (a hard link) a
 * contained command may write. The sandbox binds read-only the names its
 * walk found, not the file, so a command that writes the other name
 * without naming it (a build) changes the hook, the config or the start-up
 * file. One table of where the two names lie, walked through every door
 * that answers for a command in the person's place: the rule itself, a
 * command grant, the approve-for-me reviewer and the approver webhook for
 * Assent's own command; the reviewer and the webhook for an external
 * agent's (Codex's command, an ACP agent's own tool), which no sandbox of
 * Assent's contains; and a grant for an MCP shell tool at the gateway,
 * which runs in none. Each door first answers for the same command in the
 * same workspace before the other name is made.
 */

const COMMAND = 'ls docs'
const MAC = new IntegrityMac(Buffer.alloc(32, 37))
const AGENT = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' } as const

interface Placement {
  name: string
  /** Makes the other name in `workspace`; returns the person-only file. */
  make: (workspace: string, root: string) => Promise<string>
}

const LINKED_ELSEWHERE: Placement[] = [
  {
    name: 'a hook, and a file in the workspace',
    make: async (workspace) => {
      await writeFile(join(workspace, '.git/hooks/pre-push'), ORIGINAL)
      await link(join(workspace, '.git/hooks/pre-push'), join(workspace, 'docs/notes.txt'))
      return join(workspace, '.git/hooks/pre-push')
    },
  },
  {
    name: 'a hook in a nested repository, and a file in an install folder',
    make: async (workspace) => {
      await mkdir(join(workspace, 'node_modules/pkg'), { recursive: true })
      const hook = join(workspace, '.git/modules/sub/hooks/pre-commit')
      await link(hook, join(workspace, 'node_modules/pkg/index.js'))
      return hook
    },
  },
  {
    name: 'a hook in a folder the config names outside the workspace, and a file in it',
    make: async (workspace, root) => {
      const hooks = join(root, `outside-hooks-${randomUUID()}`)
      await mkdir(hooks)
      await writeFile(join(hooks, 'pre-commit'), ORIGINAL)
      await writeFile(join(workspace, '.git/config'), `[core]\n\thooksPath = ${hooks}\n`)
      await link(join(hooks, 'pre-commit'), join(workspace, 'build.log'))
      return join(hooks, 'pre-commit')
    },
  },
  {
    name: "the person's ~/.bashrc, and a dotfiles repository's copy in the workspace",
    make: async (workspace, root) => {
      await link(join(root, 'home', '.bashrc'), join(workspace, 'bashrc'))
      return join(root, 'home', '.bashrc')
    },
  },
  {
    name: "the person's SSH key, hidden from the command by its folder, and a file in the workspace",
    make: async (workspace, root) => {
      const key = join(root, 'home', '.ssh', 'id_ed25519')
      await mkdir(join(key, '..'), { recursive: true })
      await writeFile(key, 'a private key')
      await link(key, join(workspace, 'docs', 'key.txt'))
      return key
    },
  },
]

/** Other names the sandbox already keeps from the command, or that it
 *  cannot write: the doors still answer. */
const CONTROLS: Placement[] = [
  {
    name: 'two hooks that are one file',
    make: async (workspace) => {
      await writeFile(join(workspace, '.git/hooks/pre-push'), ORIGINAL)
      await link(join(workspace, '.git/hooks/pre-push'), join(workspace, '.git/hooks/pre-commit'))
      return ''
    },
  },
  {
    name: 'a hook, and a file outside every folder the command may write',
    make: async (workspace, root) => {
      await writeFile(join(workspace, '.git/hooks/pre-push'), ORIGINAL)
      await link(join(workspace, '.git/hooks/pre-push'), join(root, `kept-${randomUUID()}`))
      return ''
    },
  },
]

/** A plugged-in reviewer that allows everything it is shown. */
const ALLOWS_EVERYTHING: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}

let harness: RuntimeHarness
let approver: ApproverServer
let secret = ''
let savedHome: string | undefined

beforeAll(async () => {
  harness = await startInProcessRuntime({ reviewer: ALLOWS_EVERYTHING })
  approver = await ApproverServer.start()
  approver.behaviour = (request) => signedReply(secret, request, '{"approved": true}')
  // The person's home, in this process (the runtime's judgment reads it).
  savedHome = process.env.HOME
  process.env.HOME = join(harness.root, 'home')
  await mkdir(process.env.HOME, { recursive: true })
  await writeFile(join(process.env.HOME, '.bashrc'), ORIGINAL)
})
afterAll(async () => {
  if (savedHome === undefined) delete process.env.HOME
  else process.env.HOME = savedHome
  await approver?.close()
  await harness?.close()
})
afterEach(() => {
  approver.requests.length = 0
})

/** A fresh repository-like workspace, its real path. */
async function freshWorkspace(): Promise<string> {
  const workspace = join(harness.root, `linked-${randomUUID()}`)
  return realpath(await layPersonOnlyWorkspace(workspace, { hardLinkedHook: false }))
}

/** Assent's own command in `workspace`, each way it is spelled; an
 *  external agent's (run in the agent's own sandbox, which keeps `.git`
 *  read-only and hides keys by their names as Assent's does, or in none),
 *  as Codex asks for a command and as an ACP agent's own tool runs one;
 *  and an MCP server's shell tool (run in no sandbox at all). */
function commandTouches(workspace: string): ActionTouch[] {
  return [
    { toolName: 'run_command', arguments: { argv: COMMAND.split(' ') }, workspace },
    { toolName: 'run_command', arguments: { argv: ['/bin/sh', '-c', COMMAND] }, workspace },
    { toolName: 'run_command', arguments: { argv: [COMMAND], shell: true }, workspace },
    {
      toolName: AGENT_COMMAND_TOOL,
      arguments: { commandLine: COMMAND, argv: null, cwd: workspace },
      workspace,
    },
    {
      toolName: AGENT_TOOL_CALL_TOOL,
      arguments: { toolKind: 'execute', title: 'Run', input: { command: COMMAND } },
      workspace,
    },
    mcpTouch(
      { serverId: 'shell', toolName: 'execute', arguments: { command: COMMAND } },
      workspace,
    ),
  ]
}

/** The doors, each opened in a fresh room on `workspace` and shown to
 *  answer for the command first; `after` then runs it again. */
const DOORS: Array<{
  name: string
  open: (workspace: string) => Promise<{ after: () => Promise<'answered' | 'asked'> }>
}> = [
  {
    name: 'a command grant',
    open: async (workspace) => {
      const roomId = (await createRoom(harness, { workspace })).id
      const view = await pendingApprovalFor(harness, roomId, `run ${COMMAND}`)
      expect((await decide(harness, view, 'allow-always')).status).toBe(200)
      await turnSettled(harness, roomId, view.approval.turnId)
      expect((await roomGrants(harness, roomId)).map((grant) => grant.scope)).toEqual(['command'])
      const again = async () => {
        const outcome = await turnOutcome(harness, roomId, `run ${COMMAND}`)
        if (!outcome.asked) return 'answered' as const
        await denyAndSettle(harness, roomId, outcome.turnId, outcome.asked.approval.id)
        return 'asked' as const
      }
      expect(await again()).toBe('answered')
      return { after: again }
    },
  },
  {
    name: 'the approve-for-me reviewer',
    open: async (workspace) => {
      const roomId = (await createRoom(harness, { workspace })).id
      await setMode(harness, roomId, 'approve-for-me')
      const again = () => decidedOrAsked(roomId, 'agent-review')
      expect(await again()).toBe('answered')
      return { after: again }
    },
  },
  {
    name: 'the approver webhook',
    open: async (workspace) => {
      const roomId = (await createRoom(harness, { workspace })).id
      const set = await putApproverWebhook(harness, roomId, approver.url)
      expect(set.status).toBe(200)
      secret = (set.body as { secret?: string }).secret ?? ''
      const again = () => {
        approver.requests.length = 0
        return decidedOrAsked(roomId, 'webhook', (approval) => {
          expect(approval.escalationReason).toMatch(/approver webhook is not asked/)
          expect(approver.requests).toEqual([])
        })
      }
      expect(await again()).toBe('answered')
      return { after: again }
    },
  },
  {
    // An MCP server's shell tool runs in no sandbox at all.
    name: 'a grant for an MCP shell tool, at the gateway',
    open: async (workspace) => {
      const call = () => openGatewayCall(harness, shellToolRequest(workspace, COMMAND))
      const first = await call()
      const view = await harness.client.getApproval(first.approvalId ?? '')
      expect((await decide(harness, view, 'allow-always')).status).toBe(200)
      const again = async () => {
        const state = await call()
        if (state.status === 'allowed') return 'answered' as const
        const asked = await harness.client.getApproval(state.approvalId ?? '')
        expect((await decide(harness, asked, 'deny')).status).toBe(200)
        return 'asked' as const
      }
      expect(await again()).toBe('answered')
      return { after: again }
    },
  },
]

/** Runs the command once more in a room where `decidedBy` decides before
 *  the person: answered by it, or left pending for the person (then
 *  `whenAsked` looks at the approval, and the person denies it). */
async function decidedOrAsked(
  roomId: string,
  decidedBy: 'agent-review' | 'webhook',
  whenAsked: (approval: ApprovalSummary) => void = () => undefined,
): Promise<'answered' | 'asked'> {
  const { turnId, approval } = await reviewedApproval(harness, roomId, `run ${COMMAND}`)
  if (approval.status === 'allowed') {
    expect(approval.decidedBy).toBe(decidedBy)
    await turnSettled(harness, roomId, turnId)
    return 'answered'
  }
  expect(approval.status).toBe('pending')
  whenAsked(approval)
  await denyAndSettle(harness, roomId, turnId, approval.id)
  return 'asked'
}

describe.each(LINKED_ELSEWHERE)('$name', (placement) => {
  it('the rule leaves every spelling of the command to the person, naming the file', async () => {
    const workspace = await freshWorkspace()
    for (const touch of commandTouches(workspace)) expect(personOnlyReason(touch)).toBeNull()
    const file = await placement.make(workspace, harness.root)
    for (const touch of commandTouches(workspace)) {
      expect(personOnlyReason(touch)).toMatchObject({ class: 'linked-elsewhere', path: file })
    }
  })

  // An external agent's command, as Codex asks for one and as an ACP
  // agent's own tool runs one: the reviewer and the webhook answer it
  // before the other name is made, and leave it to the person after.
  it("an external agent's command: the reviewer and the webhook answer it before, and not after", async () => {
    const place = askerWorldInTempWorkspace('assent-linked-agent-', MAC, AGENT)
    try {
      await layPersonOnlyWorkspace(place.workspace, { hardLinkedHook: false })
      for (const decider of ALLOWING_DECIDERS) {
        const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
        await answersEach(asker, agentCommandRequests(COMMAND, place.workspace))
      }
      await placement.make(place.workspace, harness.root)
      await commandLeftToThePersonByEach(place.world, COMMAND, place.workspace)
    } finally {
      place.dispose()
    }
  })

  it.each(DOORS)('$name answers for the command before, and not after', async (door) => {
    const workspace = await freshWorkspace()
    const opened = await door.open(workspace)
    await placement.make(workspace, harness.root)
    expect(await opened.after()).toBe('asked')
  })
})

describe.each(CONTROLS)('$name', (placement) => {
  it('the rule and every door still answer for the command', async () => {
    const workspace = await freshWorkspace()
    const opened = []
    for (const door of DOORS) opened.push(await door.open(workspace))
    await placement.make(workspace, harness.root)
    for (const touch of commandTouches(workspace)) expect(personOnlyReason(touch)).toBeNull()
    for (const door of opened) expect(await door.after()).toBe('answered')
  })
})
