import { mkdir, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AGENT_COMMAND_TOOL } from '../src/contracts/agent-request.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import type { GatewayCallState } from '../src/contracts/mcp-gateway.ts'
import type { Grant } from '../src/contracts/room.ts'
import { isInsideRoot } from '../src/runtime/policy/path-containment.ts'
import { mcpTouch, personOnlyReason } from '../src/runtime/policy/person-only.ts'
import { personOnlyPathsIn } from '../src/runtime/policy/read-only-walk.ts'
import { openGatewayCall, putFileRequest } from './support/gateway-call-request.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import {
  CONTROL_PATH,
  contentOf,
  denyAndSettle,
  EVIL,
  layPersonOnlyWorkspace,
  ORIGINAL,
  PERSON_ONLY_PATHS,
  PERSON_ONLY_SPELLINGS,
  GIT_LAYOUTS,
  HARD_LINKED_HOOK,
  COMMAND_CONTROLS,
  COMMAND_SPELLINGS,
  turnOutcome,
} from './support/person-only-table.ts'
import { createRoom, pendingApprovalFor, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * The grant doors, against a real runtime: one table of paths that always
 * need a person (support/person-only-table.ts), walked through each kind of
 * grant. Each door first proves it answers for the control path, so a
 * sensitive path that asks is asked because of the rule, not because the
 * door never answers at all.
 */

let harness: RuntimeHarness
let workspaces = 0

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

/** A fresh repository-like workspace for one door, beside the harness's. */
function doorWorkspace(options: { hardLinkedHook?: boolean } = {}): Promise<string> {
  workspaces += 1
  return layPersonOnlyWorkspace(join(harness.root, `door-${workspaces}`), options)
}

/** Sends `text`, which would write `path`: the person is asked (no
 *  "always" offered), the file still holds `before` while they are and
 *  after they deny. */
async function askedAndUnwritten(
  roomId: string,
  workspace: string,
  text: string,
  path: string,
  before: string | null,
): Promise<void> {
  const outcome = await turnOutcome(harness, roomId, text)
  expect(outcome.asked?.approval.status).toBe('pending')
  expect(outcome.asked?.alwaysAllowAvailable).toBe(false)
  expect(await contentOf(workspace, path)).toBe(before)
  if (outcome.asked) {
    await denyAndSettle(harness, roomId, outcome.turnId, outcome.asked.approval.id)
  }
  expect(await contentOf(workspace, path)).toBe(before)
}

interface GrantDoor {
  name: string
  /** The harmless call the person allows always, which makes the grant. */
  first: string
  decision: ApprovalDecision
  scope: Grant['scope']
  /** The call that would write `EVIL` to `path` under that grant. */
  write: (path: string) => string
}

const filesystemWrite = (path: string, content: string) =>
  `mcp filesystem write_file ${JSON.stringify({ path, content })}`

const GRANT_DOORS: GrantDoor[] = [
  {
    name: 'a write_file tool grant',
    first: 'write docs/first.txt harmless',
    decision: 'allow-always',
    scope: 'tool',
    write: (path) => `write ${path} ${EVIL}`,
  },
  {
    name: "an MCP tool grant on the built-in filesystem server's write_file",
    first: filesystemWrite('docs/first.txt', 'harmless'),
    decision: 'allow-always',
    scope: 'mcp',
    write: (path) => filesystemWrite(path, EVIL),
  },
  {
    name: 'an MCP server grant on the built-in filesystem server',
    first: filesystemWrite('docs/first.txt', 'harmless'),
    decision: 'allow-always-server',
    scope: 'mcp-server',
    write: (path) => filesystemWrite(path, EVIL),
  },
]

describe.each(GRANT_DOORS)('$name', (door) => {
  let workspace: string
  let roomId: string
  let grant: Grant

  beforeAll(async () => {
    workspace = await doorWorkspace()
    roomId = (await createRoom(harness, { workspace })).id
    const view = await pendingApprovalFor(harness, roomId, door.first)
    expect((await decide(harness, view, door.decision)).status).toBe(200)
    await turnSettled(harness, roomId, view.approval.turnId)
    const grants = await roomGrants(harness, roomId)
    expect(grants.map((each) => each.scope)).toEqual([door.scope])
    grant = grants[0]!
  })

  it('answers for the control path without asking, and the write lands', async () => {
    const outcome = await turnOutcome(harness, roomId, door.write(CONTROL_PATH))
    expect(outcome.asked).toBeUndefined()
    expect(outcome.call).toMatchObject({ status: 'succeeded', approvalId: null })
    expect(await contentOf(workspace, CONTROL_PATH)).toBe(EVIL)
  })

  it.each(PERSON_ONLY_PATHS)(
    'never answers for %s: the person is asked, and nothing is written',
    async (path) => {
      await askedAndUnwritten(roomId, workspace, door.write(path), path, ORIGINAL)
      expect((await roomGrants(harness, roomId)).map((each) => each.id)).toEqual([grant.id])
    },
  )
})

describe.each(GIT_LAYOUTS)('in a repository with %s', (_name, layout, protectedPaths) => {
  let workspace: string
  let roomId: string

  beforeAll(async () => {
    workspace = await doorWorkspace()
    await layout(workspace)
    roomId = (await createRoom(harness, { workspace })).id
    const view = await pendingApprovalFor(harness, roomId, 'write docs/first.txt harmless')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, roomId, view.approval.turnId)
  })

  it('a write_file tool grant answers for the control path', async () => {
    expect(await turnOutcome(harness, roomId, `write ${CONTROL_PATH} ${EVIL}`)).toMatchObject({
      call: { status: 'succeeded', approvalId: null },
    })
  })

  it.each(protectedPaths)('the grant never answers for %s: the person is asked', async (path) => {
    const before = await contentOf(workspace, path)
    expect(before).not.toBeNull()
    await askedAndUnwritten(roomId, workspace, `write ${path} ${EVIL}`, path, before)
  })

  it('the command sandbox keeps each of them read-only', async () => {
    const real = await realpath(workspace)
    const { paths } = personOnlyPathsIn(workspace)
    for (const path of protectedPaths) {
      expect(
        paths.some((kept) => isInsideRoot(kept, join(real, path))),
        path,
      ).toBe(true)
    }
    expect(paths.some((kept) => isInsideRoot(kept, join(real, CONTROL_PATH)))).toBe(false)
  })
})

describe('a write_file tool grant in a repository whose config moves its hooks', () => {
  it.each([
    ['after a comment', '[core]\n\thooksPath = tools/hooks ; moved by the team\n'],
    ["on the section's own line", '[core] hooksPath = tools/hooks\n'],
  ])('never answers for the hooks folder git runs, named %s', async (_, config) => {
    const workspace = await doorWorkspace()
    await writeFile(join(workspace, '.git/config'), config)
    const roomId = (await createRoom(harness, { workspace })).id
    const view = await pendingApprovalFor(harness, roomId, 'write docs/first.txt harmless')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, roomId, view.approval.turnId)
    expect(await turnOutcome(harness, roomId, `write ${CONTROL_PATH} ${EVIL}`)).toMatchObject({
      call: { status: 'succeeded', approvalId: null },
    })
    const hook = 'tools/hooks/pre-commit'
    const outcome = await turnOutcome(harness, roomId, `write ${hook} ${EVIL}`)
    expect(outcome.asked?.approval.status).toBe('pending')
    expect(await contentOf(workspace, hook)).toBe(ORIGINAL)
    if (outcome.asked) {
      await denyAndSettle(harness, roomId, outcome.turnId, outcome.asked.approval.id)
    }
  })
})

/** Doors that make a grant for exactly one command or one path: for what
 *  always needs a person, the allow-always itself is refused. */
const MADE_GRANT_DOORS = [
  { name: 'a command grant', ask: (path: string) => `run cp x ${path}`, scope: 'command' },
  { name: 'a delete-path grant', ask: (path: string) => `delete ${path}`, scope: 'path' },
] as const

describe.each(MADE_GRANT_DOORS)('$name', (door) => {
  let workspace: string

  beforeAll(async () => {
    workspace = await doorWorkspace({ hardLinkedHook: false })
  })

  it('is made for the control path when the person allows it always', async () => {
    const roomId = (await createRoom(harness, { workspace })).id
    const view = await pendingApprovalFor(harness, roomId, door.ask(CONTROL_PATH))
    expect(view.alwaysAllowAvailable).toBe(true)
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, roomId, view.approval.turnId)
    expect((await roomGrants(harness, roomId)).map((each) => each.scope)).toEqual([door.scope])
  })

  it.each(PERSON_ONLY_PATHS)(
    'is refused for %s (409, no grant), and the approval stays pending for the person',
    async (path) => {
      const roomId = (await createRoom(harness, { workspace })).id
      const view = await pendingApprovalFor(harness, roomId, door.ask(path))
      expect(view.alwaysAllowAvailable).toBe(false)
      const refused = await decide(harness, view, 'allow-always')
      expect(refused).toMatchObject({ status: 409, body: { code: 'always_allow_unavailable' } })
      expect(await roomGrants(harness, roomId)).toEqual([])
      expect((await harness.client.getApproval(view.approval.id)).approval.status).toBe('pending')
      await denyAndSettle(harness, roomId, view.approval.turnId, view.approval.id)
      expect(await contentOf(workspace, path)).toBe(ORIGINAL)
    },
  )
})

describe('a grant for a tool called through the MCP gateway', () => {
  const HASH = 'b'.repeat(64)
  let workspace: string
  let grantId: string

  /** Opens a call the way assent-gateway does, with its own credential. */
  async function openCall(
    args: Record<string, unknown>,
    serverFolder?: string,
  ): Promise<GatewayCallState> {
    return openGatewayCall(harness, {
      ...putFileRequest(workspace, args, HASH),
      ...(serverFolder === undefined ? {} : { serverFolder }),
    })
  }

  beforeAll(async () => {
    workspace = await doorWorkspace()
    const first = await openCall({ target: 'docs/first.txt', body: 'harmless' })
    const view = await harness.client.getApproval(first.approvalId ?? '')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    const [grant] = await roomGrants(harness, first.roomId)
    expect(grant?.scope).toBe('mcp')
    grantId = grant?.id ?? ''
  })

  it('answers for the control path: the call is allowed by the grant', async () => {
    const state = await openCall({ target: CONTROL_PATH, body: EVIL })
    expect(state).toMatchObject({ status: 'allowed', grantId, approvalId: null })
  })

  async function waitsForThePerson(args: Record<string, unknown>): Promise<void> {
    const state = await openCall(args)
    expect(state).toMatchObject({ status: 'pending', grantId: null })
    const view = await harness.client.getApproval(state.approvalId ?? '')
    expect(view.approval.status).toBe('pending')
    expect(view.alwaysAllowAvailable).toBe(false)
    expect(view.serverAlwaysAllowAvailable).toBe(false)
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  }

  it.each(PERSON_ONLY_PATHS)(
    'never answers for %s in any argument: the call waits for the person',
    (path) => waitsForThePerson({ options: { target: path }, body: EVIL }),
  )

  it.each(PERSON_ONLY_SPELLINGS)(
    'never answers for a person-only path written as %s: the call waits for the person',
    (_name, args) => waitsForThePerson(args(workspace)),
  )

  // Another name (a hard link) of a git hook, which the server writes
  // through.
  it('never answers for a hard link to a hook: the call waits for the person', () =>
    waitsForThePerson({ target: HARD_LINKED_HOOK, body: EVIL }))

  // A folder and a name in arguments of their own, which a server joins:
  // the hooks folder the repository's config names, a bare repository
  // under an innocent name, and a git folder named as the folder itself.
  it.each([
    ['the hooks folder by its parent', { directory: 'tools', filename: 'hooks/pre-commit' }],
    ['a bare repository', { directory: 'mirror', filename: 'config' }],
    ['a bare repository as the folder written', { into: 'mirror', files: 'x' }],
  ])(
    'never answers for %s in arguments of their own: the call waits for the person',
    (_name, args) => waitsForThePerson({ ...args, body: EVIL }),
  )

  // The gateway's server works in a folder of its own: a repository whose
  // config moves its hooks to conf/hooks (tests/mcp-server-folder.test.ts
  // walks the same place through the other doors).
  it('never answers for a relative path to the hooks of the folder the server works in', async () => {
    const serverFolder = await doorWorkspace()
    await mkdir(join(serverFolder, 'conf/hooks'), { recursive: true })
    await writeFile(join(serverFolder, '.git/config'), '[core]\n\thooksPath = conf/hooks\n')
    // From the workspace alone the grant answers for the same arguments.
    const args = { target: 'conf/hooks/pre-commit', body: EVIL }
    expect(await openCall(args)).toMatchObject({ status: 'allowed', grantId })
    const state = await openCall(args, serverFolder)
    expect(state).toMatchObject({ status: 'pending', grantId: null })
    const view = await harness.client.getApproval(state.approvalId ?? '')
    expect(view.approval.mcp?.serverFolder).toBe(serverFolder)
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })

  // Another checkout, neither the workspace nor the server's folder, whose
  // config moves its hooks: a server may write wherever a path leads.
  it("never answers for the hooks folder of another checkout's config, named by its full path", async () => {
    const other = await doorWorkspace()
    await mkdir(join(other, 'conf/hooks'), { recursive: true })
    await writeFile(join(other, '.git/config'), '[core]\n\thooksPath = conf/hooks\n')
    await waitsForThePerson({ target: join(other, 'conf/hooks/pre-commit'), body: EVIL })
    // Any other place there is outside the workspace: what the server
    // reads there is a private read, which no grant answers either
    // (private-read-approval.ts, `grantForAction`); the person is asked,
    // and may allow it always (the grant then answers inside the workspace).
    const outside = await openCall({ target: join(other, 'docs/notes.txt'), body: EVIL })
    expect(outside).toMatchObject({ status: 'pending', grantId: null })
    const view = await harness.client.getApproval(outside.approvalId ?? '')
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })
})

describe('the rule every door applies reads a command as a shell would', () => {
  let workspace: string
  beforeAll(async () => {
    // No other name of a hook: that alone leaves every contained command
    // to the person (person-only-linked-elsewhere.test.ts).
    workspace = await doorWorkspace({ hardLinkedHook: false })
  })
  const asAgent = (commandLine: string) => ({
    toolName: AGENT_COMMAND_TOOL,
    arguments: { commandLine, argv: null, cwd: workspace },
    workspace,
  })
  const asRunCommand = (commandLine: string) => ({
    toolName: 'run_command',
    arguments: { argv: ['/bin/sh', '-c', commandLine] },
    workspace,
  })

  // `run_command` with `shell: true`: the argv joined is what the shell
  // runs, however it was split.
  const asShellArgv = (line: string) => ({
    toolName: 'run_command',
    arguments: { argv: line.split(' '), shell: true },
    workspace,
  })
  // A server's shell tool: its command argument is a command line too.
  const asMcpShell = (line: string) =>
    mcpTouch({ serverId: 'shell', toolName: 'execute', arguments: { command: line } }, workspace)

  it.each(COMMAND_SPELLINGS)('needs the person for %s: %s', (_name, line) => {
    expect(personOnlyReason(asAgent(line))).not.toBeNull()
    expect(personOnlyReason(asRunCommand(line))).not.toBeNull()
    expect(personOnlyReason(asShellArgv(line))).not.toBeNull()
    expect(personOnlyReason(asMcpShell(line))).not.toBeNull()
  })

  it.each(COMMAND_CONTROLS)('lets a door answer for %s', (line) => {
    expect(personOnlyReason(asAgent(line))).toBeNull()
    expect(personOnlyReason(asRunCommand(line))).toBeNull()
    expect(personOnlyReason(asShellArgv(line))).toBeNull()
    expect(personOnlyReason(asMcpShell(line))).toBeNull()
  })
})

describe('the rule every door applies reads each spelling as the path it could be', () => {
  const workspace = '/home/ada/project'
  it.each(PERSON_ONLY_SPELLINGS)('%s', (_name, args) => {
    const touch = mcpTouch(
      { serverId: 'files', toolName: 'put_file', arguments: args(workspace) },
      workspace,
    )
    expect(personOnlyReason(touch)?.class).toMatch(/^(git|credentials)$/)
    // And Assent's own tools, where the same strings sit in their fields.
    const write = {
      toolName: 'write_file',
      arguments: { ...args(workspace), content: 'x' },
      workspace,
    }
    expect(personOnlyReason(write)?.class).toMatch(/^(git|credentials)$/)
  })
})
