import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
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
 * A command that changes the modes (or owners, or access lists) of all a
 * folder holds (`chmod -R +x .`) changes those of git's hooks with them:
 * a hook the person turned off by taking its execute bit away runs again
 * at their next commit. No word of it names a hook, so the rule read it
 * as naming nothing only a person may change. One table of such commands,
 * walked through the rule every door applies (Codex's command, an ACP
 * agent's execute call, Assent's own `run_command`, which a command grant
 * answers, an MCP server's shell tool), and through the reviewer and the webhook that allow
 * everything for an external agent (src/runtime/policy/held-inside.ts,
 * where a folder a removing program is given is looked into the same
 * way), with controls each door still answers.
 */

const CHANGES: readonly string[] = [
  'chmod -R +x .',
  'chmod --recursive a+rwx .',
  'cd docs && chmod -R u+x ..',
  'timeout 5 chmod -Rv 755 .',
  'chgrp -R users .',
  'setfacl -R -m u:nobody:rwx .',
]

const CONTROLS: readonly string[] = ['chmod -R u+x docs', 'chmod +x x', 'chmod -R +x scripts']

const MAC = new IntegrityMac(Buffer.alloc(32, 43))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

describe('a command changing the modes of a folder holding a turned-off hook', () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const hook = () => join(place.workspace, '.git', 'hooks', 'pre-commit')

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-modes-changed-', MAC, AGENT)
    realGit(place.root, place.workspace, 'init', '-q')
    writeFileSync(hook(), '#!/bin/sh\necho ran > ran.txt\n')
    chmodSync(hook(), 0o644)
    for (const folder of ['docs', 'scripts']) mkdirSync(join(place.workspace, folder))
    writeFileSync(join(place.workspace, 'x'), '#!/bin/sh\n')
  })
  afterEach(() => place.dispose())

  const touches = (line: string): ActionTouch[] => [
    {
      toolName: AGENT_COMMAND_TOOL,
      arguments: { agent: AGENT, commandLine: line, argv: null, cwd: place.workspace },
      workspace: place.workspace,
    },
    {
      toolName: AGENT_TOOL_CALL_TOOL,
      arguments: { toolKind: 'execute', title: 'Run', input: { command: line } },
      workspace: place.workspace,
    },
    {
      toolName: 'run_command',
      arguments: { argv: ['sh', '-c', line] },
      workspace: place.workspace,
    },
    mcpTouch({ serverId: 'shell', toolName: 'run', arguments: { command: line } }, place.workspace),
  ]

  it.each(CHANGES)('the rule leaves %s to the person', (line) => {
    for (const touch of touches(line)) {
      const found = personOnlyReason(touch)
      expect(found, touch.toolName).not.toBeNull()
      // `..` may also name the folder above the workspace, which another
      // rule may answer for first (a key beside it in a shared /tmp, where
      // tests run at once): left to the person either way.
      if (!line.includes('..')) expect(found, touch.toolName).toMatchObject({ class: 'git' })
    }
  })

  it.each(CONTROLS)('the rule lets every door answer for %s', (line) => {
    for (const touch of touches(line)) expect(personOnlyReason(touch), touch.toolName).toBeNull()
  })

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers the controls, and after chmod -R +x . the hook runs at a commit',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      for (const line of CONTROLS) {
        await answersEach(asker, agentCommandRequests(line, place.workspace))
      }
      const commit = () =>
        realGit(place.root, place.workspace, 'commit', '-q', '--allow-empty', '-m', 'x')
      commit()
      expect(existsSync(join(place.workspace, 'ran.txt'))).toBe(false)
      execFileSync('sh', ['-c', CHANGES[0] ?? ''], { cwd: place.workspace })
      commit()
      expect(existsSync(join(place.workspace, 'ran.txt'))).toBe(true)
    },
  )

  it.each(CHANGES)('is left to the person by the reviewer and the webhook: %s', (line) =>
    commandLeftToThePersonByEach(place.world, line, place.workspace),
  )
})
