import { chmodSync, existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { basename, dirname, join } from 'node:path'
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
 * git finds a repository's git folder through a `.git` file (`gitdir:
 * …`) and a worktree's `commondir`, and reads each its own way: only line
 * ends come off the end (a trailing space or tab, or a second space after
 * the colon, is part of the name), the name stops at a NUL, and a `..`
 * after a link goes up from where the link leads; a `.git` that is
 * neither a folder nor a file (a link to /dev/null, a FIFO), or a folder
 * that is not a git folder, it passes by for the repository above. Its config there moves
 * the hooks into the workspace (`core.hooksPath = tools/h`), a relative
 * value taken from the top git runs them in (the folder `core.worktree`
 * names, where it names one) and, like an included file, with a `..` after
 * a link taken as the kernel takes it. One table of
 * such files, each checked with real git running the hook, walked through
 * every door that may answer a change to the hook without the person (a
 * grant on Assent's write tool or on an MCP server's file or shell tool,
 * the reviewer and the webhook that allow everything for an external
 * agent's file change and command, Codex's and an ACP agent's) and
 * Assent's command sandbox, which keeps the hook read-only; a control
 * script no setting names is answered at every door.
 */

const HOOK = 'tools/h/pre-commit'
const CONTROL = 'tools/other.sh'

/** Each row moves the git folder of a repository laid out by
 *  `layRepository` and leaves a file that names it. */
const POINTERS: ReadonlyArray<readonly [string, (workspace: string) => void]> = [
  ['a .git file with a trailing space', (ws) => gitFile(ws, 'gitdir: store \n', 'store ')],
  ['a .git file with a trailing tab', (ws) => gitFile(ws, 'gitdir: store\t\n', 'store\t')],
  ['a .git file with two spaces after the colon', (ws) => gitFile(ws, 'gitdir:  st\n', ' st')],
  ['a .git file with a NUL in the name', (ws) => gitFile(ws, 'gitdir: store\0.old\n', 'store')],
  [
    'a .git file naming .. after a link',
    (ws) => {
      mkdirSync(join(ws, 'deep/er'), { recursive: true })
      symlinkSync('deep/er', join(ws, 'sub'))
      gitFile(ws, 'gitdir: sub/../store\n', 'deep/store')
    },
  ],
  ['a commondir with a trailing space', (ws) => worktree(ws, '../common \n', 'common ')],
  ['a commondir with a leading space', (ws) => worktree(ws, ' ../common\n', 'wt/ ../common')],
  ['a commondir with a NUL in the name', (ws) => worktree(ws, '../common\0.old\n', 'common')],
  [
    'a commondir naming .. after a link',
    (ws) => {
      mkdirSync(join(ws, 'deep/er'), { recursive: true })
      worktree(ws, 'up/../common\n', 'deep/common')
      symlinkSync('../deep/er', join(ws, 'wt/up'))
    },
  ],
  // A .git that is neither a folder nor a file, or a folder git does not
  // take for a git folder, which git passes by for the repository above
  // the workspace.
  [
    'a .git that is a link to /dev/null',
    (ws) => passedBy(ws, (at) => symlinkSync('/dev/null', at)),
  ],
  ['a .git that is a FIFO', (ws) => passedBy(ws, (at) => execFileSync('mkfifo', [at]))],
  ['a .git folder that is empty', (ws) => passedBy(ws, (at) => mkdirSync(at))],
  [
    'a .git folder with no HEAD, whose config names another hooks folder',
    (ws) =>
      passedBy(ws, (at) => {
        for (const folder of ['objects', 'refs', 'hooks']) {
          mkdirSync(join(at, folder), { recursive: true })
        }
        writeFileSync(join(at, 'config'), '[core]\n\thooksPath = elsewhere\n')
      }),
  ],
  // The config's own paths, taken from where git takes them: the top
  // core.worktree names, and a .. after a link as the kernel takes it.
  ['a core.worktree naming another top', (ws) => worktreeTop(ws, '../tools')],
  ['a core.worktree naming another top in full', (ws) => worktreeTop(ws, `${ws}/tools`)],
  [
    'a core.hooksPath naming .. after a link',
    (ws) => {
      linkInto(ws, 'lnk', 'tools/x')
      configured(ws, 'core.hooksPath', 'lnk/../h')
    },
  ],
  [
    'an included config named with .. after a link',
    (ws) => {
      linkInto(ws, 'lnk', 'tools/x')
      writeFileSync(join(ws, 'tools/inc.config'), '[core]\n\thooksPath = tools/h\n')
      configured(ws, 'core.hooksPath', 'elsewhere')
      configured(ws, 'include.path', '../lnk/../inc.config')
    },
  ],
]

/** Moves the repository's git folder to the folder above the workspace,
 *  whose config moves the hooks to the workspace's `tools/h`, and leaves
 *  at the workspace's `.git` what `make` makes. */
function passedBy(workspace: string, make: (at: string) => void): void {
  const above = dirname(workspace)
  renameSync(join(workspace, '.git'), join(above, '.git'))
  realGit(above, above, 'config', 'core.hooksPath', `${basename(workspace)}/tools/h`)
  make(join(workspace, '.git'))
}

/** Sets `key` to `value` in the repository's own config. */
function configured(workspace: string, key: string, value: string): void {
  realGit(workspace, workspace, 'config', key, value)
}

/** Moves the top git runs the hooks in to `tools` (`core.worktree`,
 *  named by `value`), so the relative hooks folder `h` is `tools/h`. */
function worktreeTop(workspace: string, value: string): void {
  configured(workspace, 'core.worktree', value)
  configured(workspace, 'core.hooksPath', 'h')
}

/** Makes the folder `target` and a link `name` to it, in the workspace. */
function linkInto(workspace: string, name: string, target: string): void {
  mkdirSync(join(workspace, target), { recursive: true })
  symlinkSync(target, join(workspace, name))
}

/** Moves the git folder to `folder` and leaves a `.git` file `text`. */
function gitFile(workspace: string, text: string, folder: string): void {
  renameSync(join(workspace, '.git'), join(workspace, folder))
  writeFileSync(join(workspace, '.git'), text)
}

/** Moves the git folder to `common` and makes the workspace a worktree
 *  whose git folder `wt` names it in a `commondir` file `text`. */
function worktree(workspace: string, text: string, common: string): void {
  mkdirSync(join(workspace, common, '..'), { recursive: true })
  renameSync(join(workspace, '.git'), join(workspace, common))
  mkdirSync(join(workspace, 'wt'), { recursive: true })
  writeFileSync(join(workspace, 'wt/HEAD'), 'ref: refs/heads/main\n')
  writeFileSync(join(workspace, 'wt/commondir'), text)
  writeFileSync(join(workspace, '.git'), 'gitdir: wt\n')
}

const MAC = new IntegrityMac(Buffer.alloc(32, 31))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

/** A repository whose config moves its hooks to `tools/h`, with a
 *  pre-commit hook there that leaves `ran.txt` in the workspace, and the
 *  control script. */
function layRepository(root: string, workspace: string): void {
  realGit(root, root, 'init', '-q', workspace)
  realGit(root, workspace, 'config', 'core.hooksPath', 'tools/h')
  mkdirSync(join(workspace, 'tools/h'), { recursive: true })
  for (const script of [HOOK, CONTROL]) {
    writeFileSync(join(workspace, script), `#!/bin/sh\ntouch '${join(workspace, 'ran.txt')}'\n`)
    chmodSync(join(workspace, script), 0o755)
  }
}

describe.each(POINTERS)('in a repository found through %s', (_name, point) => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const touches = (script: string): ActionTouch[] => {
    const workspace = place.workspace
    return [
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
  }

  beforeAll(() => {
    place = askerWorldInTempWorkspace('assent-git-pointers-rule-', MAC, AGENT)
    layRepository(place.root, place.workspace)
    point(place.workspace)
  })
  afterAll(() => place.dispose())

  it('real git runs the hook the config names', () => {
    // From above the folder holding the workspace: git may find the
    // repository there.
    realGit(dirname(place.root), place.workspace, 'commit', '-q', '--allow-empty', '-m', 'x')
    expect(existsSync(join(place.workspace, 'ran.txt'))).toBe(true)
  })

  it('no grant answers a change to the hook', () => {
    for (const touch of touches(HOOK)) {
      expect(personOnlyReason(touch), touch.toolName).toMatchObject({ class: 'git' })
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
  })

  it("Assent's command sandbox keeps the hooks folder read-only, and not the control", () => {
    const walked = personOnlyPathsIn(place.workspace)
    const kept = [...walked.paths, ...walked.elsewhere]
    const keeps = (path: string) => kept.some((each) => path.startsWith(each))
    expect(keeps(join(place.workspace, HOOK))).toBe(true)
    expect(keeps(join(place.workspace, CONTROL))).toBe(false)
  })

  it('control: a grant answers a change to a script no setting names', () => {
    for (const touch of touches(CONTROL)) {
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBe('grant')
    }
  })
})

describe("an external agent's change, in a repository found through a file git reads its way", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-git-pointers-', MAC, AGENT)
    layRepository(place.root, place.workspace)
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a change to a script no setting names',
    async (decider) => {
      const [, point] = POINTERS[0] ?? []
      point?.(place.workspace)
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      await answersEach(asker, agentFileChangeRequests(join(place.workspace, CONTROL)))
      await answersEach(asker, agentCommandRequests(`cp x ${CONTROL}`, place.workspace))
    },
  )

  it.each(POINTERS)(
    'is left to the person by the reviewer and the webhook: a change to the hook, with %s',
    async (_name, point) => {
      point(place.workspace)
      await fileChangeLeftToThePersonByEach(place.world, join(place.workspace, HOOK))
      await commandLeftToThePersonByEach(place.world, `cp x ${HOOK}`, place.workspace)
    },
  )
})
