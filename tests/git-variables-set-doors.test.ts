import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AGENT_TOOL_CALL_TOOL, type AgentIdentity } from '../src/contracts/agent-request.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import type { GatewayCallState } from '../src/contracts/mcp-gateway.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import {
  grantThatMayAnswer,
  mcpTouch,
  personOnlyReason,
  type ActionTouch,
} from '../src/runtime/policy/person-only.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import {
  agentCommandRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { openGatewayCall, putFileRequest } from './support/gateway-call-request.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import { realGit } from './support/real-git.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A variable that changes what git runs or where its folder is needs the
 * person when a line sets it (`GIT_CONFIG_COUNT=1 … git commit`, `HOME=docs
 * git commit`, which reads `docs/.gitconfig`), and the
 * shell sets one without `NAME=value` as well: `read` and `mapfile` give
 * it a value from input or a file, a loop gives it its words, a name
 * reference another name's assignment, and `export` hands it to git. One
 * table of such lines, walked through every door that may answer a
 * command without the person: the rule for Assent's own command, Codex's
 * command, an ACP agent's execute call and an MCP server's shell tool, a
 * grant for each, a grant for the tool and one for every tool of its
 * server at the gateway, and the reviewer and the webhook that allow
 * everything for an external agent; with controls that set variables no
 * rule keeps, answered at every door.
 */

const ROWS: ReadonlyArray<readonly [string, string]> = [
  [
    'read from a here-string',
    'read GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0 <<< "1 core.hooksPath docs"; export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0; git commit -q --allow-empty -m x',
  ],
  ['a loop variable', 'for GIT_DIR in docs; do export GIT_DIR; git init -q; done'],
  ['read from a file', 'read -r GIT_PAGER < docs/pager; export GIT_PAGER; git log'],
  [
    'mapfile',
    'mapfile -t GIT_CONFIG_PARAMETERS < docs/params; export GIT_CONFIG_PARAMETERS; git status',
  ],
  ['a name reference', 'declare -n v=GIT_DIR; v=docs; export v; git init -q'],
  [
    'a name made when it runs',
    'read -r n <<< GIT_DIR; read "$n" <<< docs; export "$n"; git init -q',
  ],
  // Where git reads its global config from, moved into the workspace:
  // `docs/.gitconfig` is a file no rule keeps, and git runs what it names.
  ['the home folder moved, for the command', 'HOME=docs git commit -q --allow-empty -m x'],
  ['the home folder moved, exported', 'export HOME=docs; git status'],
  ['the config folder moved', 'XDG_CONFIG_HOME=docs git status'],
  ['the home folder read from a file', 'read -r HOME < docs/home; export HOME; git status'],
]

const CONTROLS: readonly string[] = [
  'read -r answer <<< yes; git status',
  'for n in 1 2; do git log -1; done',
  'export LANG=C.UTF-8; git status',
  'declare -x NO_COLOR; git status',
  'read -r -p "$PS2" answer; git status',
]

const MAC = new IntegrityMac(Buffer.alloc(32, 37))
const AGENT: AgentIdentity = { id: 'zed', name: 'Zed agent', protocol: 'acp' }

describe('bash sets the variable, and git honours it', () => {
  let root: string
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-git-variables-set-')))
    realGit(root, root, 'init', '-q')
    mkdirSync(join(root, 'docs'))
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  const bash = (line: string, more: NodeJS.ProcessEnv = {}) =>
    execFileSync('bash', ['-c', line], {
      cwd: root,
      env: {
        ...process.env,
        GIT_CEILING_DIRECTORIES: join(root, '..'),
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_AUTHOR_NAME: 'a',
        GIT_AUTHOR_EMAIL: 'a@example.com',
        GIT_COMMITTER_NAME: 'a',
        GIT_COMMITTER_EMAIL: 'a@example.com',
        ...more,
      },
      stdio: 'ignore',
    })

  it('runs the hook a setting read from a here-string names', () => {
    writeFileSync(join(root, 'docs/pre-commit'), '#!/bin/sh\necho ran > ran.txt\n')
    chmodSync(join(root, 'docs/pre-commit'), 0o755)
    bash(ROWS[0]?.[1] ?? '')
    expect(existsSync(join(root, 'ran.txt'))).toBe(true)
  })

  it('runs the hook a config in a moved home folder names', () => {
    writeFileSync(join(root, 'docs/.gitconfig'), '[core]\n\thooksPath = docs/hooks\n')
    mkdirSync(join(root, 'docs/hooks'))
    writeFileSync(join(root, 'docs/hooks/pre-commit'), '#!/bin/sh\necho ran > ran.txt\n')
    chmodSync(join(root, 'docs/hooks/pre-commit'), 0o755)
    // Git reads the global config from $HOME only where nothing names
    // another file for it.
    bash(ROWS.find(([name]) => name.endsWith('for the command'))?.[1] ?? '', {
      GIT_CONFIG_GLOBAL: undefined,
    })
    expect(existsSync(join(root, 'ran.txt'))).toBe(true)
  })

  it.each(ROWS.filter(([, line]) => line.includes('git init -q')))(
    'makes a git folder under another name: %s',
    (_name, line) => {
      bash(line)
      expect(existsSync(join(root, 'docs/HEAD'))).toBe(true)
    },
  )
})

describe('the rule every door applies', () => {
  const workspace = '/nonexistent/assent-git-variables-set'
  const touches = (line: string): ActionTouch[] => [
    { toolName: 'run_command', arguments: { commandLine: line }, workspace },
    { toolName: 'agent_command', arguments: { commandLine: line }, workspace },
    {
      toolName: AGENT_TOOL_CALL_TOOL,
      arguments: { agent: AGENT, toolKind: 'execute', title: 'Run', input: { command: line } },
      workspace,
    },
    mcpTouch({ serverId: 'shell', toolName: 'execute', arguments: { command: line } }, workspace),
  ]

  it.each(ROWS)('needs the person for a variable set by %s', (_name, line) => {
    for (const touch of touches(line)) {
      expect(personOnlyReason(touch), touch.toolName).not.toBeNull()
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
  })

  it.each(CONTROLS)('lets a grant answer for %s', (line) => {
    for (const touch of touches(line)) {
      expect(
        grantThatMayAnswer(touch, 'on-request', () => 'grant'),
        touch.toolName,
      ).toBe('grant')
    }
  })
})

describe("an external agent's command, on a real repository", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-git-variables-set-', MAC, AGENT)
    realGit(place.root, place.workspace, 'init', '-q')
    mkdirSync(join(place.workspace, 'docs'))
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a line setting no such variable',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      for (const line of CONTROLS)
        await answersEach(asker, agentCommandRequests(line, place.workspace))
    },
  )

  it.each(ROWS)(
    'is left to the person by the reviewer and the webhook: %s',
    async (_name, line) => {
      await commandLeftToThePersonByEach(place.world, line, place.workspace)
    },
  )
})

describe.each<ApprovalDecision>(['allow-always', 'allow-always-server'])(
  'a grant (%s) for an MCP shell tool called through the gateway',
  (decision) => {
    const HASH = 'e'.repeat(64)
    let harness: RuntimeHarness
    let workspace: string
    let grantId: string

    const openCall = (line: string): Promise<GatewayCallState> =>
      openGatewayCall(harness, {
        ...putFileRequest(workspace, { command: line }, HASH),
        serverId: 'shell',
        serverName: 'Shell',
        toolName: 'execute',
        toolDescription: 'Runs a command line.',
        serverTools: { names: ['execute'], hash: HASH },
      })

    beforeAll(async () => {
      harness = await startHarness()
      workspace = join(harness.root, 'git-variables-set')
      mkdirSync(workspace)
      execFileSync('git', ['init', '-q'], { cwd: workspace })
      const first = await openCall('git status')
      const view = await harness.client.getApproval(first.approvalId ?? '')
      expect((await decide(harness, view, decision)).status).toBe(200)
      const [grant] = await roomGrants(harness, first.roomId)
      expect(grant?.scope).toBe(decision === 'allow-always' ? 'mcp' : 'mcp-server')
      grantId = grant?.id ?? ''
    })
    afterAll(async () => {
      await harness?.close()
    })

    it.each(CONTROLS)('answers for %s: the call is allowed by the grant', async (line) => {
      expect(await openCall(line)).toMatchObject({ status: 'allowed', grantId, approvalId: null })
    })

    it.each(ROWS)(
      'never answers for a variable set by %s: the call waits for the person',
      async (_name, line) => {
        const state = await openCall(line)
        expect(state).toMatchObject({ status: 'pending', grantId: null })
        const view = await harness.client.getApproval(state.approvalId ?? '')
        expect(view.alwaysAllowAvailable).toBe(false)
        expect((await decide(harness, view, 'deny')).status).toBe(200)
      },
    )
  },
)
