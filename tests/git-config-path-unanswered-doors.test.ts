import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { delimiter, join, relative } from 'node:path'
import { userInfo } from 'node:os'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import { GitPathNotExpanded } from '../src/runtime/policy/git-config-paths.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import {
  grantThatMayAnswer,
  mcpTouch,
  personOnlyReason,
  type ActionTouch,
} from '../src/runtime/policy/person-only.ts'
import { personOnlyPathsIn } from '../src/runtime/policy/read-only-walk.ts'
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
import { realGit } from './support/real-git.ts'

/**
 * A git config value starting `~user/` is expanded by asking git itself
 * (git-config-paths.ts). Where git gives no answer (it cannot be started
 * with the PATH Assent has, runs out of time, is killed), the hooks folder
 * the value names is not known, and the person's own git may well expand
 * it: every door leaves the change to the person, where before the value
 * named nothing and a grant, the reviewer or the webhook answered a write
 * of the hook it names. Walked through the rule (Assent's write tool and
 * command, an MCP server's write and shell tools), the reviewer and the
 * webhook for an external agent's file change and command, and the
 * sandbox's walk, which does not start the command. The control is the
 * same git in a repository whose configs name no such value.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 37))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }
const HOOK = 'unanswered-hooks/pre-commit'

const SEARCH_PATH = process.env.PATH
let place: ReturnType<typeof askerWorldInTempWorkspace>

/** A git that dies before it answers, first on the PATH. */
function gitThatGivesNoAnswer(root: string): void {
  const bin = join(root, 'dead-git-bin')
  mkdirSync(bin)
  writeFileSync(join(bin, 'git'), '#!/bin/sh\nkill -9 $$\n')
  chmodSync(join(bin, 'git'), 0o755)
  process.env.PATH = `${bin}${delimiter}${SEARCH_PATH}`
}

/** The repository, its config naming the hooks folder from the user's
 *  home when `named`, and git unanswering from here on. */
function lay(named: boolean): void {
  realGit(place.root, place.root, 'init', '-q', place.workspace)
  mkdirSync(join(place.workspace, 'unanswered-hooks'))
  if (named) {
    const { username, homedir } = userInfo()
    const value = `~${username}/${relative(homedir, join(place.workspace, 'unanswered-hooks'))}`
    realGit(place.root, place.workspace, 'config', 'core.hooksPath', value)
  }
  gitThatGivesNoAnswer(place.root)
}

function touches(file: string): ActionTouch[] {
  const workspace = place.workspace
  return [
    { toolName: 'write_file', arguments: { path: file, content: 'x' }, workspace },
    { toolName: 'run_command', arguments: { command: `cp x ${file}` }, workspace },
    mcpTouch(
      { serverId: 'files', toolName: 'write_file', arguments: { path: file, content: 'x' } },
      workspace,
    ),
    mcpTouch(
      { serverId: 'shell', toolName: 'run', arguments: { command: `cp x ${file}` } },
      workspace,
    ),
  ]
}

const savedGlobal = process.env.GIT_CONFIG_GLOBAL
beforeEach(() => {
  place = askerWorldInTempWorkspace('assent-config-path-unanswered-', MAC, AGENT)
  // The machine's own config is not read: only the repository's says where hooks are.
  process.env.GIT_CONFIG_GLOBAL = '/dev/null'
})
afterEach(() => {
  process.env.PATH = SEARCH_PATH
  if (savedGlobal === undefined) delete process.env.GIT_CONFIG_GLOBAL
  else process.env.GIT_CONFIG_GLOBAL = savedGlobal
  place.dispose()
})

describe('a hooks folder git gives no answer for', () => {
  it('is the person’s at the rule every door applies, and no grant answers', () => {
    lay(true)
    for (const touch of touches(join(place.workspace, HOOK))) {
      expect(personOnlyReason(touch), touch.toolName).toMatchObject({ class: 'git' })
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
  })

  it('is left to the person by the reviewer and the webhook', async () => {
    lay(true)
    const file = join(place.workspace, HOOK)
    await fileChangeLeftToThePersonByEach(place.world, file)
    await commandLeftToThePersonByEach(place.world, `cp x ${file}`, place.workspace)
  })

  it("stops the sandbox's walk, so no command starts on it", () => {
    lay(true)
    expect(() => personOnlyPathsIn(place.workspace)).toThrow(GitPathNotExpanded)
  })
})

describe('control: the same git, with no value for it to expand', () => {
  it('a grant answers, at the rule', () => {
    lay(false)
    for (const touch of touches(join(place.workspace, HOOK))) {
      expect(
        grantThatMayAnswer(touch, 'on-request', () => 'grant'),
        touch.toolName,
      ).toBe('grant')
    }
    expect(() => personOnlyPathsIn(place.workspace)).not.toThrow()
  })

  it.each(ALLOWING_DECIDERS)('$by answers', async (decider) => {
    lay(false)
    const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
    const file = join(place.workspace, HOOK)
    await answersEach(asker, agentFileChangeRequests(file))
    await answersEach(asker, agentCommandRequests(`cp x ${file}`, place.workspace))
  })
})
