import { execFileSync } from 'node:child_process'
import { mkdirSync, realpathSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
 * A line that has a later command run what none of its words says: a
 * `trap`'s action, run as the shell exits, `mapfile -C`'s callback, a
 * script that is the input (`source /dev/stdin`), a prompt bash expands
 * or runs (`PS4`, `PROMPT_COMMAND`), a pager, filter, editor or askpass
 * program given as an option or a variable (`man -P`, `PAGER`, `LESSOPEN`,
 * `git grep -O`), and a name given to another
 * program for the commands after it, an alias (bash expands one in a
 * script after `shopt -s expand_aliases`, zsh always) or bash's `hash
 * -p`. `alias g=git`, then `g config core.hooksPath /tmp/h`, changes what
 * git runs with no `git config` among the words. One table of such lines,
 * walked through the rule every door applies (Codex's command, an ACP
 * agent's execute call, an MCP server's shell tool, Assent's own
 * `run_command` given as an argv and through its shell), and through the
 * reviewer and the webhook that allow everything for an external agent,
 * with controls each door still answers. (src/runtime/policy/hand-offs.ts
 * reads a trap's action as a line of its own, shell-commands.ts leaves an
 * alias or `hash -p` to the person.)
 */

const LINES: readonly string[] = [
  "trap 'git config core.hooksPath /tmp/h' EXIT",
  "trap -- 'cp x .git/hooks/post-merge' EXIT INT",
  'shopt -s expand_aliases; alias g=git\ng config core.hooksPath /tmp/h',
  "alias g='git config'\ng core.hooksPath /tmp/h",
  'hash -p /usr/bin/git g; g config core.hooksPath /tmp/h',
  // A line bash runs for mapfile's lines, a script that is the input, a
  // prompt bash expands as it traces, one it runs as it prompts.
  "mapfile -C 'git config core.hooksPath /tmp/h #' -c 1 a < docs/ok.md",
  "source /dev/stdin <<< 'git config core.hooksPath /tmp/h'",
  "PS4='$(git config core.hooksPath /tmp/h)' bash -xc ls",
  "PROMPT_COMMAND='git config core.hooksPath /tmp/h' bash -ic ls",
  // A line a program runs as its pager, filter, editor or askpass, given
  // as an option or a variable.
  "man -P 'git config core.hooksPath /tmp/h' ls",
  "man --pager='git config core.hooksPath /tmp/h' ls",
  "PAGER='git config core.hooksPath /tmp/h' git log",
  "export MANPAGER='git config core.hooksPath /tmp/h'; man ls",
  "LESSOPEN='|git config core.hooksPath /tmp/h %s' less docs/ok.md",
  "EDITOR='cp x .git/hooks/post-merge' git commit",
  "SSH_ASKPASS='git config core.hooksPath /tmp/h' SSH_ASKPASS_REQUIRE=force ssh host",
  "git grep -O'git config core.hooksPath /tmp/h' ok",
  "git grep --open-files-in-pager='git config core.hooksPath /tmp/h' ok",
]

/** The lines of `LINES` bash runs here as written, each setting
 *  core.hooksPath (bash takes no `PS4` from its environment when run as
 *  root, as tests may be). */
const BASH_RUNS = [LINES[0], LINES[2], LINES[4], LINES[5], LINES[6]] as const

const CONTROLS: readonly string[] = [
  "trap 'rm -f out.tmp' EXIT; ls docs",
  'alias',
  'alias ll',
  'hash -r; ls docs',
  'echo trap',
  'mapfile -t a < docs/ok.md; echo done',
  'source ./env.sh',
  'man -P cat ls',
  'PAGER=cat git log -1',
  "LESSOPEN='|lesspipe %s' less docs/ok.md",
  'git grep -n ok docs',
]

const MAC = new IntegrityMac(Buffer.alloc(32, 47))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

describe('the rule every door applies', () => {
  let workspace = ''
  beforeAll(() => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-later-commands-')))
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
    place = askerWorldInTempWorkspace('assent-later-commands-', MAC, AGENT)
    realGit(place.root, place.workspace, 'init', '-q')
    mkdirSync(join(place.workspace, 'docs'))
    writeFileSync(join(place.workspace, 'docs', 'ok.md'), 'ok\n')
    writeFileSync(join(place.workspace, 'x'), '#!/bin/sh\n')
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers the controls, and bash changes what git runs through each line',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      for (const line of CONTROLS) {
        await answersEach(asker, agentCommandRequests(line, place.workspace))
      }
      for (const line of BASH_RUNS) {
        realGit(place.root, place.workspace, 'config', 'core.hooksPath', 'hooks')
        execFileSync('bash', ['-c', line ?? ''], {
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
