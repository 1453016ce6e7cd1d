import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
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
 * git expands a config value it reads as a path before it uses it: `~user/`
 * is that user's home and `%(prefix)/` the folder git was installed under
 * (and a newer git reads `:(optional)x` as `x`). A hooks folder, an
 * included config, an attributes file or a template folder named so is
 * git's as one named plainly is: one table of them, in the repository's
 * config and in the person's own, walked through every door that may
 * answer a change to one without the person (a grant on Assent's write
 * tool or on an MCP server's, the reviewer and the webhook that allow
 * everything for an external agent's file change and command, Codex's and
 * an ACP agent's) and Assent's command sandbox, which keeps each
 * read-only, with a control file no setting names, answered at every door.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 31))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

/** `target` as a value starting `~user/`, for the user running the tests. */
function fromUserHome(target: string): string {
  const { username, homedir } = userInfo()
  return `~${username}/${relative(homedir, target)}`
}

/** `target` as a value starting `%(prefix)/`, git's own prefix. */
function fromGitPrefix(target: string): string {
  const prefix = realGit('/', '/', '-c', 'a.b=%(prefix)/', 'config', '--path', '--get', 'a.b')
  return `%(prefix)/${relative(prefix.trim(), target)}`
}

/** Per row: where the setting is (the repository's config or the
 *  person's: their dotfiles may be the workspace), the setting, how its
 *  value is written from the absolute place, the place in the workspace,
 *  and the file there a change to which would change what git runs. */
type Row = readonly ['repository' | 'person', string, (target: string) => string, string, string]
const ROWS: readonly Row[] = [
  ['repository', 'core.hooksPath', fromUserHome, 'user-hooks', 'user-hooks/pre-commit'],
  ['repository', 'core.hooksPath', fromGitPrefix, 'prefix-hooks', 'prefix-hooks/pre-commit'],
  ['repository', 'core.hooksPath', () => ':(optional)opt-hooks', '', 'opt-hooks/pre-commit'],
  ['repository', 'include.path', fromUserHome, 'user.gitconfig', 'user.gitconfig'],
  ['repository', 'includeIf.gitdir:/.path', fromGitPrefix, 'prefix.gitconfig', 'prefix.gitconfig'],
  ['repository', 'core.attributesFile', fromUserHome, 'user.attributes', 'user.attributes'],
  ['repository', 'init.templateDir', fromGitPrefix, 'template', 'template/hooks/post-checkout'],
  ['person', 'core.hooksPath', fromUserHome, 'global-hooks', 'global-hooks/pre-commit'],
]
const CONTROL = 'tools/other.sh'

let savedGlobal: string | undefined

/** Names each row's place in the workspace's config, or in a config of
 *  the person's the environment names (as `GIT_CONFIG_GLOBAL` does). */
function layConfigs(root: string, workspace: string): void {
  realGit(root, root, 'init', '-q', workspace)
  mkdirSync(join(workspace, 'tools'))
  writeFileSync(join(workspace, CONTROL), '#!/bin/sh\n')
  const global = join(root, 'person.gitconfig')
  writeFileSync(global, '')
  for (const [where, setting, written, place] of ROWS) {
    const value = written(join(workspace, place))
    if (where === 'repository') realGit(root, workspace, 'config', '--add', setting, value)
    else realGit(root, root, 'config', '--file', global, '--add', setting, value)
  }
  savedGlobal = process.env.GIT_CONFIG_GLOBAL
  process.env.GIT_CONFIG_GLOBAL = global
}

function restoreGlobal(): void {
  if (savedGlobal === undefined) delete process.env.GIT_CONFIG_GLOBAL
  else process.env.GIT_CONFIG_GLOBAL = savedGlobal
}

/** The absolute path of a row's file. */
function fileOf(row: Row, workspace: string): string {
  return join(workspace, row[4])
}

describe('git expands the values as paths', () => {
  it('runs a hook from a folder named from a home or its prefix, and reads such an include', () => {
    for (const written of [fromUserHome, fromGitPrefix]) {
      const place = askerWorldInTempWorkspace('assent-config-path-git-', MAC, AGENT)
      try {
        realGit(place.root, place.root, 'init', '-q', place.workspace)
        mkdirSync(join(place.workspace, 'h'))
        const ran = join(place.root, 'ran')
        writeFileSync(join(place.workspace, 'h/pre-commit'), `#!/bin/sh\ntouch ${ran}\n`, {
          mode: 0o755,
        })
        writeFileSync(join(place.workspace, 'i.gitconfig'), '[a]\n\tb = included\n')
        const at = (name: string) => written(join(place.workspace, name))
        realGit(place.root, place.workspace, 'config', 'core.hooksPath', at('h'))
        realGit(place.root, place.workspace, 'config', 'include.path', at('i.gitconfig'))
        realGit(place.root, place.workspace, 'hook', 'run', 'pre-commit')
        expect(existsSync(ran)).toBe(true)
        expect(realGit(place.root, place.workspace, 'config', 'a.b').trim()).toBe('included')
      } finally {
        place.dispose()
      }
    }
  })
})

describe('the rule every door applies', () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const touches = (file: string): ActionTouch[] => {
    const workspace = place.workspace
    return [
      { toolName: 'write_file', arguments: { path: file, content: 'x' }, workspace },
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

  beforeAll(() => {
    place = askerWorldInTempWorkspace('assent-config-path-rule-', MAC, AGENT)
    layConfigs(place.root, place.workspace)
  })
  afterAll(() => {
    restoreGlobal()
    place.dispose()
  })

  it.each(ROWS)('no grant answers a change where %s %s names it (%#)', (...row) => {
    for (const touch of touches(fileOf(row, place.workspace))) {
      expect(personOnlyReason(touch), touch.toolName).toMatchObject({ class: 'git' })
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
  })

  it("Assent's command sandbox keeps each read-only, and not the control", () => {
    const walked = personOnlyPathsIn(place.workspace)
    const kept = [...walked.paths, ...walked.elsewhere]
    const isKept = (file: string) => kept.some((k) => file === k || file.startsWith(`${k}/`))
    for (const row of ROWS) {
      expect(isKept(fileOf(row, place.workspace)), row[4]).toBe(true)
    }
    expect(isKept(join(place.workspace, CONTROL))).toBe(false)
  })

  it('control: a grant answers a change to a file no setting names', () => {
    for (const touch of touches(CONTROL)) {
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBe('grant')
    }
  })
})

describe("an external agent's change", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-config-path-', MAC, AGENT)
    layConfigs(place.root, place.workspace)
  })
  afterEach(() => {
    restoreGlobal()
    place.dispose()
  })

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a change to a file no setting names',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      await answersEach(asker, agentFileChangeRequests(join(place.workspace, CONTROL)))
      await answersEach(asker, agentCommandRequests(`cp x ${CONTROL}`, place.workspace))
    },
  )

  it.each(ROWS)(
    'is left to the person by the reviewer and the webhook: %s %s (%#)',
    async (...row) => {
      const file = fileOf(row, place.workspace)
      await fileChangeLeftToThePersonByEach(place.world, file)
      await commandLeftToThePersonByEach(place.world, `cp x ${file}`, place.workspace)
    },
  )
})
