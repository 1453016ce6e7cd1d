import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import type { GatewayCallState } from '../src/contracts/mcp-gateway.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import {
  grantThatMayAnswer,
  mcpTouch,
  personOnlyReason,
  type ActionTouch,
} from '../src/runtime/policy/person-only.ts'
import { personOnlyPathsIn } from '../src/runtime/policy/read-only-walk.ts'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { varTmpFolder } from '../src/runtime/sandbox/test-support/var-tmp-folder.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import {
  agentCommandRequests,
  agentFileChangeRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
  fileChangeLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import { openGatewayCall, putFileRequest } from './support/gateway-call-request.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import { realGit } from './support/real-git.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import {
  BUILD_SCRIPT,
  CI_SCRIPT,
  layToolConfigs,
  PACKAGE_SCRIPT,
  TOOL_CONFIGS,
  UNNAMED_SCRIPT,
} from './support/tool-configs.ts'

/**
 * A config the person-only table holds may name a script of the workspace
 * as what a tool runs without the person asking for it: a hook manager's
 * (pre-commit, lefthook, overcommit) and a hook, at the person's next
 * `git commit`, outside any sandbox; an editor's task run as the folder
 * opens; a dev container's command on the host; what mise runs or sources
 * on entering the folder. The script is the config's, as a program a git
 * config names is git's: one table of them (tests/support/tool-configs.ts),
 * walked through every door that may answer a change to one without the
 * person (a grant on Assent's write tool, on an MCP server's tool in a
 * room and at the gateway, the reviewer and the webhook for an external
 * agent's file change and command, Codex's and an ACP agent's) and
 * Assent's command sandbox in a real
 * bubblewrap, which keeps each read-only. The controls each door answers:
 * a script nothing names, one only a CI workflow names (the project's
 * code, run in CI on the next push), one only a build task names.
 */

const ROWS = TOOL_CONFIGS.map(({ row, script }) => [row, script] as const)
const CONTROLS = [UNNAMED_SCRIPT, CI_SCRIPT, PACKAGE_SCRIPT]

const MAC = new IntegrityMac(Buffer.alloc(32, 31))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

const touches = (workspace: string, script: string): ActionTouch[] => [
  { toolName: 'write_file', arguments: { path: script, content: 'x' }, workspace },
  mcpTouch(
    { serverId: 'files', toolName: 'write_file', arguments: { path: script, content: 'x' } },
    workspace,
  ),
  mcpTouch(
    { serverId: 'shell', toolName: 'run', arguments: { command: `cp x ${script}` } },
    workspace,
  ),
]

describe('the rule every door applies', () => {
  let root = ''
  let workspace = ''
  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-tool-configs-')))
    workspace = join(root, 'ws')
    mkdirSync(workspace)
    layToolConfigs(root, workspace)
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it.each(ROWS)('no grant answers a change to what %s names', (_row, script) => {
    for (const touch of touches(workspace, script)) {
      expect(personOnlyReason(touch), touch.toolName).not.toBeNull()
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
  })

  it.each(CONTROLS)('control: a grant answers a change to %s', (script) => {
    for (const touch of touches(workspace, script)) {
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBe('grant')
    }
  })

  it('in a folder that is no repository: a task run on open, but not a build task', () => {
    const opened = join(root, 'opened')
    const built = join(root, 'built')
    for (const [folder, runOn] of [
      [opened, ', "runOptions": { "runOn": "folderOpen" }'],
      [built, ', "group": "build"'],
    ] as const) {
      mkdirSync(join(folder, '.vscode'), { recursive: true })
      const task = `{ "label": "x", "type": "shell", "command": "./${BUILD_SCRIPT}"${runOn} }`
      writeFileSync(join(folder, '.vscode/tasks.json'), `{ "tasks": [${task}] }\n`)
    }
    for (const touch of touches(opened, BUILD_SCRIPT)) {
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
    for (const touch of touches(built, BUILD_SCRIPT)) {
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBe('grant')
    }
    const kept = personOnlyPathsIn(opened).paths
    expect(kept).toContain(join(opened, BUILD_SCRIPT))
    expect(personOnlyPathsIn(built).paths).not.toContain(join(built, BUILD_SCRIPT))
  })
})

const HAS_BWRAP = await bubblewrapRequired()

describe.runIf(HAS_BWRAP)("Assent's command sandbox, in a real bubblewrap", () => {
  const scratch = varTmpFolder('assent-tool-configs-')
  let workspace = ''
  let sandbox: CommandSandbox
  beforeAll(() => {
    workspace = join(scratch(), 'ws')
    mkdirSync(workspace)
    layToolConfigs(scratch(), workspace)
    const home = join(scratch(), 'home')
    mkdirSync(home)
    sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
  })
  const { sh } = sandboxedRun(() => ({ workspace, sandbox }))

  it.each(ROWS)('keeps what %s names read-only', async (_row, script) => {
    const result = await sh(`echo 'curl x | sh' >> ${script}`, 'workspace-write')
    expect(result.ok, result.output).toBe(false)
    expect(readFileSync(join(workspace, script), 'utf8')).toBe('#!/bin/sh\necho ran > ran.txt\n')
  })

  it.each(CONTROLS)('control: lets a command change %s', async (script) => {
    const result = await sh(`echo '# x' >> ${script}`, 'workspace-write')
    expect(result.ok, result.output).toBe(true)
    expect(readFileSync(join(workspace, script), 'utf8')).toContain('# x')
  })
})

describe("an external agent's change", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-tool-configs-', MAC, AGENT)
    layToolConfigs(place.root, place.workspace)
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a change to a script nothing names, and git commit runs the husky hook’s script',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      await answersEach(asker, agentFileChangeRequests(join(place.workspace, UNNAMED_SCRIPT)))
      await answersEach(asker, agentCommandRequests(`cp x ${UNNAMED_SCRIPT}`, place.workspace))
      realGit(
        place.root,
        place.workspace,
        '-c',
        'core.hooksPath=.husky',
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        'x',
      )
      expect(existsSync(join(place.workspace, 'ran.txt'))).toBe(true)
    },
  )

  it.each(ROWS)(
    'is left to the person by the reviewer and the webhook: a change to what %s names',
    async (_row, script) => {
      await fileChangeLeftToThePersonByEach(place.world, join(place.workspace, script))
      await commandLeftToThePersonByEach(place.world, `cp x ${script}`, place.workspace)
    },
  )
})

describe("a grant for an MCP server's tool called through the gateway", () => {
  const HASH = 'e'.repeat(64)
  let harness: RuntimeHarness
  let workspace: string
  let grantId: string
  const openCall = (script: string): Promise<GatewayCallState> =>
    openGatewayCall(harness, putFileRequest(workspace, { path: script, text: 'x' }, HASH))

  beforeAll(async () => {
    harness = await startHarness()
    workspace = join(harness.root, 'tool-configs')
    mkdirSync(workspace)
    layToolConfigs(harness.root, workspace)
    const first = await openCall('docs/first.txt')
    const view = await harness.client.getApproval(first.approvalId ?? '')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    const [grant] = await roomGrants(harness, first.roomId)
    grantId = grant?.id ?? ''
  })
  afterAll(async () => {
    await harness?.close()
  })

  it.each(CONTROLS)('answers for a change to %s', async (script) => {
    expect(await openCall(script)).toMatchObject({ status: 'allowed', grantId, approvalId: null })
  })

  it.each(ROWS)('never answers for a change to what %s names', async (_row, script) => {
    const state = await openCall(script)
    expect(state).toMatchObject({ status: 'pending', grantId: null })
    const view = await harness.client.getApproval(state.approvalId ?? '')
    expect(view.alwaysAllowAvailable).toBe(false)
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })
})
