import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AGENT_FILE_CHANGE_TOOL, type AgentIdentity } from '../src/contracts/agent-request.ts'
import type { GatewayCallState } from '../src/contracts/mcp-gateway.ts'
import { BUILT_IN_FILESYSTEM_SERVER_ID } from '../src/contracts/mcp-config.ts'
import { personOnlyAtStart, settleMadePersonOnly } from '../src/runtime/policy/made-person-only.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import {
  grantThatMayAnswer,
  mcpTouch,
  personOnlyReason,
  type ActionTouch,
} from '../src/runtime/policy/person-only.ts'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { varTmpFolder } from '../src/runtime/sandbox/test-support/var-tmp-folder.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  askerWorldInTempWorkspace,
  codexRequest,
} from '../src/runtime/test-support/external-asker.ts'
import {
  agentFileChangeRequests,
  ALLOWING_DECIDERS,
  answersEach,
  fileChangeLeftToThePersonByEach,
  leftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import { openGatewayCall, putFileRequest } from './support/gateway-call-request.ts'
import {
  ADDING_HOOKS,
  AGENTS_CHANGES,
  CARRYING_HOOKS,
  layPackages,
  packageText,
  PLAIN_PACKAGE,
  SPELLED_HOOK_CHANGES,
} from './support/package-hooks-table.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A package.json may say what runs at the person's next `git commit`
 * (husky v4's and simple-git-hooks' hooks, lint-staged's commands, the
 * package scripts the `pre-commit` package runs): a change to that part
 * is the person's, any other change the agent's
 * (src/runtime/policy/package-hooks.ts). One table
 * (tests/support/package-hooks-table.ts) walked through every door that
 * may answer without the person: a grant on Assent's write tool and on the
 * built-in file server's (which know the new text, and compare), on
 * another MCP server's tool in a room and at the gateway, and on a command
 * (which do not, and ask for a package.json carrying such a key); the
 * reviewer and the webhook for an external agent's change (Codex's diff,
 * an ACP agent's old and new text); Assent's
 * command sandbox in a real bubblewrap, which keeps such a package.json
 * read-only and moves aside one a command gave such a key; and the watch
 * of a call nothing contains, which does the same.
 */

const CARRYING = CARRYING_HOOKS.map((each) => [each.row, each] as const)
const ADDING = ADDING_HOOKS.map((each) => [each.row, each] as const)
const AGENTS = AGENTS_CHANGES.map((each) => [each.row, each] as const)

const MAC = new IntegrityMac(Buffer.alloc(32, 31))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }
const GRANT = (touch: ActionTouch) => grantThatMayAnswer(touch, 'on-request', () => 'grant')

/** The doors that know the whole new text of the file they write. */
const writing = (workspace: string, file: string, text: string): ActionTouch[] => [
  { toolName: 'write_file', arguments: { path: file, content: text }, workspace },
  mcpTouch(
    {
      serverId: BUILT_IN_FILESYSTEM_SERVER_ID,
      toolName: 'write_file',
      arguments: { path: file, content: text },
    },
    workspace,
  ),
]

/** The doors that do not. */
const changing = (workspace: string, file: string): ActionTouch[] => [
  mcpTouch(
    { serverId: 'files', toolName: 'write_file', arguments: { path: file, content: '{}' } },
    workspace,
  ),
  mcpTouch(
    { serverId: 'shell', toolName: 'run', arguments: { command: `cp x ${file}` } },
    workspace,
  ),
  { toolName: 'run_command', arguments: { argv: ['sed', '-i', 's/a/b/', file] }, workspace },
]

describe('the rule every door applies', () => {
  let root = ''
  let workspace = ''
  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-package-hooks-')))
    workspace = join(root, 'ws')
    mkdirSync(workspace)
    layPackages(root, workspace)
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it.each(CARRYING)('no grant answers a change to %s', (_row, { folder, after }) => {
    const file = `${folder}/package.json`
    for (const touch of [
      ...writing(workspace, file, packageText(after)),
      ...changing(workspace, file),
    ]) {
      expect(personOnlyReason(touch), touch.toolName).not.toBeNull()
      expect(GRANT(touch), touch.toolName).toBeUndefined()
    }
  })

  it.each(ADDING)(
    'no grant answers a write of the whole file with %s',
    (_row, { folder, after }) => {
      for (const touch of writing(workspace, `${folder}/package.json`, packageText(after))) {
        expect(GRANT(touch), touch.toolName).toBeUndefined()
      }
    },
  )

  it.each(AGENTS)('control: a grant answers a write of %s', (_row, { folder, after }) => {
    for (const touch of writing(workspace, `${folder}/package.json`, packageText(after))) {
      expect(GRANT(touch), touch.toolName).toBe('grant')
    }
  })

  it('control: a grant answers any change to a package.json with no hook key', () => {
    const file = `${PLAIN_PACKAGE.folder}/package.json`
    const touches = [
      ...writing(workspace, file, packageText(PLAIN_PACKAGE.after)),
      ...changing(workspace, file),
    ]
    for (const touch of touches) expect(GRANT(touch), touch.toolName).toBe('grant')
  })

  // An external agent's file change, as its grant on one file and the
  // deciders read it (the change as stored: the agent's own fields).
  it.each(SPELLED_HOOK_CHANGES)('no grant answers an external agent’s change: %s', (_row, made) => {
    const touch = {
      toolName: AGENT_FILE_CHANGE_TOOL,
      arguments: { agent: AGENT, changes: [made(workspace)] },
      workspace,
    }
    expect(personOnlyReason(touch)).toMatchObject({ class: 'git' })
    expect(GRANT(touch)).toBeUndefined()
  })

  it.each(ADDING)('a call nothing contains that made %s has it moved aside', (_row, row) => {
    const file = join(workspace, row.folder, 'package.json')
    const start = personOnlyAtStart([workspace])
    writeFileSync(file, packageText(row.after))
    const plain = join(workspace, PLAIN_PACKAGE.folder, 'package.json')
    writeFileSync(plain, packageText(PLAIN_PACKAGE.after))
    const settled = settleMadePersonOnly(start)
    expect(settled.made.map((each) => each.path)).toEqual([file])
    writeFileSync(file, packageText(row.before))
  })
})

const HAS_BWRAP = await bubblewrapRequired()

describe.runIf(HAS_BWRAP)("Assent's command sandbox, in a real bubblewrap", () => {
  const scratch = varTmpFolder('assent-package-hooks-')
  let workspace = ''
  let sandbox: CommandSandbox
  beforeAll(() => {
    workspace = join(scratch(), 'ws')
    mkdirSync(workspace)
    layPackages(scratch(), workspace)
    const home = join(scratch(), 'home')
    mkdirSync(home)
    sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
  })
  const { sh } = sandboxedRun(() => ({ workspace, sandbox }))
  const write = (folder: string, value: Record<string, unknown>) =>
    `printf '%s' '${packageText(value).replaceAll("'", "'\\''")}' > ${folder}/package.json`

  it.each(CARRYING)(
    'keeps a package.json with %s read-only',
    async (_row, { folder, before, after }) => {
      const result = await sh(write(folder, after), 'workspace-write')
      expect(result.ok, result.output).toBe(false)
      expect(readFileSync(join(workspace, folder, 'package.json'), 'utf8')).toBe(
        packageText(before),
      )
    },
  )

  it.each(ADDING)(
    'moves aside a package.json a command gave %s',
    async (_row, { folder, after }) => {
      const result = await sh(write(folder, after), 'workspace-write')
      expect(result).toMatchObject({ ok: false, code: 'person_only_made' })
      expect(result.output).toContain(`${folder}/package.json`)
    },
  )

  it('control: lets a command change a package.json with no hook key', async () => {
    const { folder, after } = PLAIN_PACKAGE
    const result = await sh(write(folder, after), 'workspace-write')
    expect(result.ok, result.output).toBe(true)
    expect(readFileSync(join(workspace, folder, 'package.json'), 'utf8')).toBe(packageText(after))
  })
})

describe("an external agent's change", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const fileChange = (folder: string, diff = '@@ -1 +1 @@\n-x\n+y\n') =>
    codexRequest({
      kind: 'file-changes',
      changes: [
        {
          path: join(place.workspace, folder, 'package.json'),
          change: 'update',
          movePath: null,
          diff,
          oldText: null,
          newText: null,
        },
      ],
    })

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-package-hooks-', MAC, AGENT)
    layPackages(place.root, place.workspace)
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a change to a package.json with no hook key',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      const file = join(place.workspace, PLAIN_PACKAGE.folder, 'package.json')
      await answersEach(asker, agentFileChangeRequests(file))
    },
  )

  it.each(CARRYING)(
    'is left to the person by the reviewer and the webhook: a change to a package.json with %s',
    async (_row, { folder }) => {
      const file = join(place.workspace, folder, 'package.json')
      await fileChangeLeftToThePersonByEach(place.world, file)
    },
  )

  // Its diff is all that is known of the new text, and nothing walks the
  // workspace after a file change: the lines it adds are read.
  it.each(ADDING)(
    'is left to the person by the reviewer and the webhook: a diff that makes %s',
    async (_row, { folder, before, after }) => {
      const added = Object.keys(after).filter((key) => !Object.hasOwn(before, key))
      const lines = added.map((key) => `+  ${JSON.stringify(key)}: ${JSON.stringify(after[key])},`)
      const diff = `@@ -1,2 +1,${2 + lines.length} @@\n {\n${lines.join('\n')}\n   "name": "x"\n`
      await leftToThePersonByEach(place.world, () => fileChange(folder, diff))
    },
  )

  // An ACP agent's change carries the whole new text.
  it.each(ADDING)(
    "is left to the person by the reviewer and the webhook: an ACP agent's new text that makes %s",
    async (_row, { folder, before, after }) => {
      const change = {
        path: join(place.workspace, folder, 'package.json'),
        change: 'update',
        movePath: null,
        diff: null,
        oldText: packageText(before),
        newText: packageText(after),
      } as const
      await leftToThePersonByEach(place.world, () => ({
        ...codexRequest({ kind: 'file-changes', changes: [change] }),
        protocol: 'acp',
      }))
    },
  )

  it.each(SPELLED_HOOK_CHANGES)(
    'is left to the person by the reviewer and the webhook: %s',
    async (_row, made) => {
      const change = made(place.workspace)
      await leftToThePersonByEach(place.world, () =>
        codexRequest({ kind: 'file-changes', changes: [change] }),
      )
    },
  )
})

describe("a grant for an MCP server's tool called through the gateway", () => {
  const HASH = 'e'.repeat(64)
  let harness: RuntimeHarness
  let workspace: string
  let grantId: string
  const openCall = (file: string): Promise<GatewayCallState> =>
    openGatewayCall(harness, putFileRequest(workspace, { path: file, text: '{}' }, HASH))

  beforeAll(async () => {
    harness = await startHarness()
    workspace = join(harness.root, 'package-hooks')
    mkdirSync(workspace)
    layPackages(harness.root, workspace)
    const first = await openCall('docs/first.txt')
    const view = await harness.client.getApproval(first.approvalId ?? '')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    const [grant] = await roomGrants(harness, first.roomId)
    grantId = grant?.id ?? ''
  })
  afterAll(async () => {
    await harness?.close()
  })

  it('control: answers for a change to a package.json with no hook key', async () => {
    expect(await openCall(`${PLAIN_PACKAGE.folder}/package.json`)).toMatchObject({
      status: 'allowed',
      grantId,
      approvalId: null,
    })
  })

  it.each(CARRYING)(
    'never answers for a change to a package.json with %s',
    async (_row, { folder }) => {
      const state = await openCall(`${folder}/package.json`)
      expect(state).toMatchObject({ status: 'pending', grantId: null })
      const view = await harness.client.getApproval(state.approvalId ?? '')
      expect(view.alwaysAllowAvailable).toBe(false)
      expect((await decide(harness, view, 'deny')).status).toBe(200)
    },
  )
})
