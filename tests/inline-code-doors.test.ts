import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_TOOL_CALL_TOOL,
  type AgentIdentity,
} from '../src/contracts/agent-request.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from '../src/runtime/policy/person-only.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import {
  agentCommandRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { realGit } from './support/real-git.ts'

/**
 * Code in another language among a command's words, or a command line a
 * tool runs of its own: `python3 -c 'import os; os.system("git config
 * …")'` names nothing the rule reads, and changes what git runs. One table
 * of such lines, walked through the rule every door applies (Codex's
 * command, an ACP agent's execute call, an MCP server's shell tool,
 * Assent's own `run_command` as an argv and through its shell), and
 * through the reviewer and the webhook that allow everything for an
 * external agent, with controls each door still answers: a script file,
 * an awk or sed program that runs nothing (src/runtime/policy/inline-code.ts).
 */

const H = 'git config core.hooksPath /tmp/h'

const LINES: readonly string[] = [
  `python3 -c 'import os; os.system("${H}")'`,
  `python -Bc 'import os; os.system("${H}")'`,
  `perl -e 'system("${H}")'`,
  `perl -pi -e 'system("${H}")' docs/ok.md`,
  `ruby -e 'system("${H}")'`,
  `node -e 'require("child_process").execSync("${H}")'`,
  `node --eval='require("child_process").execSync("${H}")'`,
  `php -r 'system("${H}");'`,
  `awk 'BEGIN { system("${H}") }'`,
  `awk 'BEGIN { print "x" | "sh" }'`,
  `sed -n '1e ${H}' docs/ok.md`,
  `sed 's/.*/${H}/e' docs/ok.md`,
  `tar --checkpoint=1 --checkpoint-action=exec='${H}' -cf /tmp/a.tar docs`,
  `zip -T -TT '${H}' /tmp/a.zip docs`,
  `vim -c '!${H}' -c q`,
  `make --eval='all:; ${H}'`,
  `make -f /dev/stdin <<< 'all:; ${H}'`,
  `expect -c 'spawn ${H}'`,
  `tmux new -d '${H}'`,
  `at now <<< '${H}'`,
  `crontab <<< '* * * * * ${H}'`,
  `socat - EXEC:'${H}'`,
  `ncat -e '${H}' localhost 1`,
]

/** The lines that run here as written, each setting core.hooksPath. */
const RUNS_HERE: readonly string[] = [LINES[0] ?? '', LINES[2] ?? '', LINES[8] ?? '']

const CONTROLS: readonly string[] = [
  'python3 build.py',
  'python3 -m pytest -q',
  'perl script.pl',
  'node build.js',
  "awk '{ print $1 }' docs/ok.md",
  "sed -i 's/a/b/' docs/ok.md",
  'make -C docs',
  'tmux ls',
  'crontab -l',
]

const MAC = new IntegrityMac(Buffer.alloc(32, 53))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

describe('the rule every door applies', () => {
  let workspace = ''
  beforeAll(() => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-inline-code-')))
    mkdirSync(join(workspace, 'docs'))
  })
  afterAll(() => rmSync(workspace, { recursive: true, force: true }))

  const touches = (line: string): ActionTouch[] => [
    {
      toolName: AGENT_COMMAND_TOOL,
      arguments: { agent: AGENT, commandLine: line, argv: null, cwd: workspace },
      workspace,
    },
    {
      toolName: AGENT_TOOL_CALL_TOOL,
      arguments: { toolKind: 'execute', title: 'Run', input: { command: line } },
      workspace,
    },
    mcpTouch({ serverId: 'shell', toolName: 'run', arguments: { command: line } }, workspace),
    { toolName: 'run_command', arguments: { argv: ['bash', '-c', line] }, workspace },
    { toolName: 'run_command', arguments: { argv: [line], shell: true }, workspace },
  ]

  it.each(LINES)('needs the person for %s', (line) => {
    for (const touch of touches(line))
      expect(personOnlyReason(touch), touch.toolName).not.toBeNull()
  })

  it.each(CONTROLS)('lets every door answer for %s', (line) => {
    for (const touch of touches(line)) expect(personOnlyReason(touch), touch.toolName).toBeNull()
  })
})

describe("an external agent's command, on a real repository", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-inline-code-', MAC, AGENT)
    realGit(place.root, place.workspace, 'init', '-q')
    mkdirSync(join(place.workspace, 'docs'))
    writeFileSync(join(place.workspace, 'docs', 'ok.md'), 'ok\n')
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers the controls, and each line changes what git runs',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      for (const line of CONTROLS) {
        await answersEach(asker, agentCommandRequests(line, place.workspace))
      }
      for (const line of RUNS_HERE) {
        realGit(place.root, place.workspace, 'config', 'core.hooksPath', 'hooks')
        execFileSync('bash', ['-c', line], {
          cwd: place.workspace,
          env: { ...process.env, GIT_CEILING_DIRECTORIES: place.root },
          stdio: 'ignore',
        })
        const hooks = realGit(place.root, place.workspace, 'config', 'core.hooksPath')
        expect(hooks.trim(), line).toBe('/tmp/h')
      }
    },
  )

  it.each(LINES)('is left to the person by the reviewer and the webhook: %s', (line) =>
    commandLeftToThePersonByEach(place.world, line, place.workspace),
  )
})
