import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_TOOL_CALL_TOOL,
  type AgentIdentity,
} from '../src/contracts/agent-request.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import type { GatewayCallState } from '../src/contracts/mcp-gateway.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from '../src/runtime/policy/person-only.ts'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import { runCommandTool } from '../src/runtime/tools/run-command.ts'
import {
  agentCommandRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import { openGatewayCall, shellToolRequest } from './support/gateway-call-request.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import { realGit } from './support/real-git.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A program a command runs on names no word of it holds: `xargs` and
 * `parallel` take them from their input, `find -exec … {}`, `fd -x` and
 * ripgrep's `--pre` from the files they find, `tar -T`, `cpio` and the
 * like from a list in a file or the input, and `read d` sets `$d` from
 * the input for the words after it. Every word of such a line,
 * read as a path, names nothing only a person may change, while `git
 * rev-parse --git-dir | xargs -I{} cp x {}/hooks/post-merge` writes a hook
 * (src/runtime/policy/names-from-input.ts). One table of such lines,
 * walked through every door that may answer a command outside Assent's
 * sandbox without the person: the rule itself (for Codex's command, an
 * ACP agent's execute call and an MCP server's shell tool), the reviewer
 * and the webhook that allow everything (Codex's command and an ACP
 * agent's execute call), and a grant for a shell tool and one for every
 * tool of its server at the gateway; with controls each door still
 * answers. Assent's own `run_command` is the contained door: the rule
 * leaves such a line to a command grant, and the sandbox keeps the hook
 * read-only when it runs.
 */

const HOOK = '.git/hooks/post-merge'

/** Lines a shell here runs as written, each changing `.git` (git's
 *  config for the sed rows, the hook for the others). */
const RUN_HERE: readonly string[] = [
  'git rev-parse --git-dir | xargs -I{} cp x {}/hooks/post-merge',
  `git rev-parse --git-path hooks/post-merge | xargs cp x`,
  'git rev-parse --git-dir | xargs -I D cp x D/hooks/post-merge',
  'git rev-parse --git-path config | xargs --no-run-if-empty sed -i s/bare/BARE/',
  "find . -maxdepth 1 -type d -exec cp x '{}/hooks/post-merge' ';'",
  "find . -type f -name post-merge -exec cp x '{}' +",
  // A variable read from the input, the whole word it is used in.
  'git rev-parse --git-path hooks/post-merge | { read d; cp x "$d"; }',
  'git rev-parse --git-path config | while read -r f; do sed -i s/bare/BARE/ "$f"; done',
]

const LINES: readonly string[] = [
  ...RUN_HERE,
  'git rev-parse --git-dir | parallel cp x {}/hooks/post-merge',
  'fd -HI -t d -d 1 -x cp x {}/hooks/post-merge',
  'rg --pre ./x --hidden -l . .',
  // bash's `read` with no name sets REPLY.
  'git rev-parse --git-path hooks/post-merge | (read; cp x $REPLY)',
  // A list of names in a file or the input.
  'git rev-parse --git-path config | cpio -o | base64',
  'tar -cf - -T list.txt | base64',
  'tar -czf out.tgz --files-from=list.txt',
  'rsync -a --files-from=list.txt staging/ .',
  'zip -q -@ out.zip < list.txt',
  'wc -c --files0-from=list.txt',
  'find -files0-from list.txt -exec true ;',
]

const CONTROLS: readonly string[] = [
  'git diff --name-only -z | git add --pathspec-from-file=- --pathspec-file-nul',
  'git ls-files | wc -l',
  "find docs -name '*.md'",
  'fd -e md . docs',
  // No command (xargs runs `echo`), and fd's type `x`, not its `-x`.
  'git ls-files | xargs -n 1',
  'fd -tx . docs',
  // Read, and not used.
  'while read -r line; do :; done < docs/ok.md',
  'tar -czf out.tgz docs',
  'rsync -a docs/ out/',
  'rg -n TODO docs',
]

const MAC = new IntegrityMac(Buffer.alloc(32, 41))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

/** Makes `workspace` a repository with a hook to overwrite and a file `x`. */
function layRepository(root: string, workspace: string): void {
  realGit(root, workspace, 'init', '-q')
  mkdirSync(join(workspace, 'docs'), { recursive: true })
  writeFileSync(join(workspace, 'docs', 'ok.md'), 'ok\n')
  writeFileSync(join(workspace, HOOK), 'original\n')
  writeFileSync(join(workspace, 'x'), '#!/bin/sh\necho ran > ran.txt\n')
}

describe('the rule every door applies', () => {
  let root = ''
  let workspace = ''
  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-names-from-input-')))
    workspace = join(root, 'ws')
    mkdirSync(workspace)
    layRepository(root, workspace)
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  const uncontained = (line: string): ActionTouch[] => [
    {
      toolName: AGENT_COMMAND_TOOL,
      arguments: { agent: AGENT, commandLine: line, argv: null, cwd: workspace },
      workspace,
    },
    {
      toolName: AGENT_TOOL_CALL_TOOL,
      arguments: { toolKind: 'execute', title: 'Run', input: { command: line, cwd: workspace } },
      workspace,
    },
    mcpTouch({ serverId: 'shell', toolName: 'run', arguments: { command: line } }, workspace),
  ]
  const contained = (line: string): ActionTouch[] => [
    { toolName: 'run_command', arguments: { argv: ['sh', '-c', line] }, workspace },
    { toolName: 'run_command', arguments: { argv: [line], shell: true }, workspace },
  ]

  it.each(LINES)('needs the person for %s outside the sandbox', (line) => {
    for (const touch of uncontained(line)) {
      expect(personOnlyReason(touch), touch.toolName).toMatchObject({
        class: 'built-at-run-time',
      })
    }
  })

  it.each(LINES)("leaves %s to a grant for Assent's own, contained, command", (line) => {
    for (const touch of contained(line)) expect(personOnlyReason(touch)).toBeNull()
  })

  it.each(CONTROLS)('lets every door answer for %s', (line) => {
    for (const touch of [...uncontained(line), ...contained(line)]) {
      expect(personOnlyReason(touch), touch.toolName).toBeNull()
    }
  })
})

describe("an external agent's command, on a real repository", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-names-from-input-', MAC, AGENT)
    layRepository(place.root, place.workspace)
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers the controls, and the shell changes .git through each line',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      for (const line of CONTROLS) {
        await answersEach(asker, agentCommandRequests(line, place.workspace))
      }
      const config = readFileSync(join(place.workspace, '.git', 'config'), 'utf8')
      for (const line of RUN_HERE) {
        writeFileSync(join(place.workspace, HOOK), 'original\n')
        writeFileSync(join(place.workspace, '.git', 'config'), config)
        execFileSync('sh', ['-c', line], {
          cwd: place.workspace,
          env: { ...process.env, GIT_CEILING_DIRECTORIES: place.root },
          stdio: 'ignore',
        })
        const changed =
          readFileSync(join(place.workspace, HOOK), 'utf8') !== 'original\n' ||
          readFileSync(join(place.workspace, '.git', 'config'), 'utf8') !== config
        expect(changed, line).toBe(true)
      }
    },
  )

  it.each(LINES)('is left to the person by the reviewer and the webhook: %s', (line) =>
    commandLeftToThePersonByEach(place.world, line, place.workspace),
  )
})

describe.each<ApprovalDecision>(['allow-always', 'allow-always-server'])(
  'a grant (%s) for an MCP shell tool called through the gateway',
  (decision) => {
    let harness: RuntimeHarness
    let workspace: string
    let grantId: string

    const openCall = (line: string): Promise<GatewayCallState> =>
      openGatewayCall(harness, shellToolRequest(workspace, line))

    beforeAll(async () => {
      harness = await startHarness()
      workspace = join(harness.root, 'names-from-input')
      mkdirSync(workspace)
      layRepository(harness.root, workspace)
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

    it.each(LINES)('never answers for %s: the call waits for the person', async (line) => {
      const state = await openCall(line)
      expect(state).toMatchObject({ status: 'pending', grantId: null })
      const view = await harness.client.getApproval(state.approvalId ?? '')
      expect(view.alwaysAllowAvailable).toBe(false)
      expect((await decide(harness, view, 'deny')).status).toBe(200)
    })
  },
)

const HAS_BWRAP = await bubblewrapRequired()

describe.runIf(HAS_BWRAP)("Assent's own command, which a command grant may answer", () => {
  let root = ''
  let sandbox: CommandSandbox
  beforeAll(() => {
    // Under /var/tmp: a contained command's /tmp is its own.
    root = realpathSync(mkdtempSync(join('/var/tmp', 'assent-names-from-input-')))
    mkdirSync(join(root, 'home'))
    sandbox = new CommandSandbox({
      home: join(root, 'home'),
      env: { ...process.env, HOME: join(root, 'home') },
      assentPrivate: [],
    })
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it.each(RUN_HERE)('runs %s in the sandbox, which keeps .git read-only', async (line) => {
    const workspace = mkdtempSync(join(root, 'ws-'))
    layRepository(root, workspace)
    const config = readFileSync(join(workspace, '.git', 'config'), 'utf8')
    const result = await runCommandTool.run(
      { argv: ['sh', '-c', line] },
      {
        workspace,
        resolvedPaths: [workspace],
        timeoutMs: 60_000,
        command: { sandbox, sandboxMode: 'workspace-write', extraWritableRoots: [] },
      },
    )
    // It ran, and its write into .git failed there.
    expect(result.output).toMatch(/Read-only file system/)
    expect(readFileSync(join(workspace, HOOK), 'utf8')).toBe('original\n')
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe(config)
  })
})
