import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_TOOL_CALL_TOOL,
  type AgentIdentity,
} from '../../src/contracts/agent-request.ts'
import { policyForMode } from '../../src/runtime/policy/permission-modes.ts'
import {
  mcpTouch,
  personOnlyReason,
  type ActionTouch,
} from '../../src/runtime/policy/person-only.ts'
import { IntegrityMac } from '../../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../../src/runtime/test-support/external-asker.ts'
import {
  agentCommandRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
} from './allowing-deciders.ts'
import { realGit } from './real-git.ts'

const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

export interface CommandLineTable {
  /** Names the folders the tests make. */
  prefix: string
  /** Lines every door leaves to the person. */
  lines: readonly string[]
  /** Lines every door still answers. */
  controls: readonly string[]
  /** Lines of `lines` bash runs here as written, each setting the
   *  repository's core.hooksPath to /tmp/h. */
  runsHere: readonly string[]
}

/**
 * Walks a table of command lines through the rule every door applies
 * (Codex's command, an ACP agent's execute call, an MCP server's shell
 * tool, Assent's own `run_command` as an argv and through its shell), and
 * through the reviewer and the webhook that allow everything for an
 * external agent, with controls each door still answers, on a workspace
 * holding `docs/ok.md` and an executable `x`; and shows, with real bash on
 * a real repository, that each of `runsHere` changes what git runs.
 */
export function walkCommandLinesThroughDoors(table: CommandLineTable): void {
  describe('the rule every door applies', () => {
    let workspace = ''
    beforeAll(() => {
      workspace = realpathSync(mkdtempSync(join(tmpdir(), table.prefix)))
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

    it.each(table.lines)('needs the person for %s', (line) => {
      for (const touch of touches(line))
        expect(personOnlyReason(touch), touch.toolName).not.toBeNull()
    })

    it.each(table.controls)('lets every door answer for %s', (line) => {
      for (const touch of touches(line)) expect(personOnlyReason(touch), touch.toolName).toBeNull()
    })
  })

  describe("an external agent's command, on a real repository", () => {
    let place: ReturnType<typeof askerWorldInTempWorkspace>

    beforeEach(() => {
      place = askerWorldInTempWorkspace(table.prefix, new IntegrityMac(Buffer.alloc(32, 47)), AGENT)
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
        for (const line of table.controls) {
          await answersEach(asker, agentCommandRequests(line, place.workspace))
        }
        for (const line of table.runsHere) {
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

    it.each(table.lines)('is left to the person by the reviewer and the webhook: %s', (line) =>
      commandLeftToThePersonByEach(place.world, line, place.workspace),
    )
  })
}
