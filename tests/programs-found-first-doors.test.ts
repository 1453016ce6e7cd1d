import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import {
  grantThatMayAnswer,
  mcpTouch,
  personOnlyReason,
  type ActionTouch,
} from '../src/runtime/policy/person-only.ts'
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
import { realGit } from './support/real-git.ts'

/**
 * A file made where the program search (PATH) finds it before an
 * installed program of its name runs in place of that program at the
 * next command calling it by name: with the workspace's `bin` first on
 * PATH, `bin/git` is the next `git status`. One table of PATHs (Assent's
 * own, which every agent and server it starts inherits), each with the
 * file that shadows git, walked through every door that may answer
 * without the person: the rule and a grant for Assent's write tool, an
 * MCP server's write and shell tools and an external agent's command,
 * and the reviewer and the webhook that allow everything for Codex's and
 * an ACP agent's file change and command. With the current folder on
 * PATH, every word of a command may be such a file: there the command
 * that calls `git` while `./git` is there is left to the person. Assent's
 * command sandbox keeps each such folder read-only. The
 * controls (a name no program has, `git status` with no `./git`) are
 * answered at every door.
 */

const ORIGINAL_PATH = process.env.PATH ?? '/usr/bin:/bin'

/** Per row: the PATH (from the workspace), and the file that shadows git,
 *  written by a change, or there already and called by a command. */
const ROWS: ReadonlyArray<readonly [string, string, (workspace: string) => string]> = [
  ["the workspace's bin first", 'bin/git', (ws) => `${join(ws, 'bin')}:${ORIGINAL_PATH}`],
  ['a relative folder first', 'node_modules/.bin/git', () => `node_modules/.bin:${ORIGINAL_PATH}`],
  ["a link beside it to the workspace's lib first", 'lib/git', linkedFirst],
]
const CURRENT_FOLDER_FIRST = (): string => `.:${ORIGINAL_PATH}`

/** A PATH whose first folder, outside the workspace, is a link to its
 *  `lib` (made once): the search finds `lib/git` under the link's name. */
function linkedFirst(workspace: string): string {
  const link = join(dirname(workspace), `${workspace.split('/').pop() ?? ''}-linked-bin`)
  if (!existsSync(link)) symlinkSync(join(workspace, 'lib'), link)
  return `${link}:${ORIGINAL_PATH}`
}
const CONTROL = 'bin/no-program-is-called-this'

const MAC = new IntegrityMac(Buffer.alloc(32, 41))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

const FAKE_GIT = '#!/bin/sh\necho ran > "$(dirname "$0")/ran.txt"\n'

let place: ReturnType<typeof askerWorldInTempWorkspace>
beforeEach(() => {
  place = askerWorldInTempWorkspace('assent-found-first-', MAC, AGENT)
  realGit(place.root, place.workspace, 'init', '-q')
  mkdirSync(join(place.workspace, 'bin'))
  mkdirSync(join(place.workspace, 'lib'))
  mkdirSync(join(place.workspace, 'node_modules/.bin'), { recursive: true })
})
afterEach(() => {
  process.env.PATH = ORIGINAL_PATH
  place.dispose()
})

/** Makes `file` in the workspace a program that leaves `ran.txt`. */
function plant(file: string): void {
  writeFileSync(join(place.workspace, file), FAKE_GIT)
  chmodSync(join(place.workspace, file), 0o755)
}

describe('the program search', () => {
  it.each([...ROWS, ['the current folder first', 'git', CURRENT_FOLDER_FIRST] as const])(
    'with %s, runs the file in place of git',
    (_name, file, searchPath) => {
      plant(file)
      execFileSync('sh', ['-c', 'git status'], {
        cwd: place.workspace,
        env: { ...process.env, PATH: searchPath(place.workspace) },
      })
      expect(existsSync(join(place.workspace, file, '..', 'ran.txt'))).toBe(true)
    },
  )
})

describe('the rule every door applies', () => {
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
      { toolName: 'agent_command', arguments: { commandLine: `cp x ${file}` }, workspace },
    ]
  }

  it.each(ROWS)('with %s, no grant answers a change to %s', (_name, file, searchPath) => {
    process.env.PATH = searchPath(place.workspace)
    for (const touch of touches(file)) {
      expect(personOnlyReason(touch), touch.toolName).toMatchObject({ class: 'runs-later' })
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
  })

  it('with the current folder first, no grant answers git while ./git is there', () => {
    plant('git')
    process.env.PATH = CURRENT_FOLDER_FIRST()
    const touch: ActionTouch = {
      toolName: 'agent_command',
      arguments: { commandLine: 'git status' },
      workspace: place.workspace,
    }
    expect(personOnlyReason(touch)).toMatchObject({ class: 'runs-later' })
    expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
  })

  it.each(ROWS)(
    'control: with %s, a grant answers a name no program has',
    (_n, _file, searchPath) => {
      process.env.PATH = searchPath(place.workspace)
      for (const touch of touches(CONTROL)) {
        expect(
          grantThatMayAnswer(touch, 'on-request', () => 'grant'),
          touch.toolName,
        ).toBe('grant')
      }
    },
  )
})

describe("an external agent's change or command", () => {
  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a name no program has, and git with no ./git',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      process.env.PATH = ROWS[0]?.[2](place.workspace) ?? ''
      await answersEach(asker, agentFileChangeRequests(join(place.workspace, CONTROL)))
      await answersEach(asker, agentCommandRequests(`cp x ${CONTROL}`, place.workspace))
      process.env.PATH = CURRENT_FOLDER_FIRST()
      await answersEach(asker, agentCommandRequests('git status', place.workspace))
    },
  )

  it.each(ROWS)(
    'with %s, is left to the person by the reviewer and the webhook: %s',
    async (_name, file, searchPath) => {
      process.env.PATH = searchPath(place.workspace)
      await fileChangeLeftToThePersonByEach(place.world, join(place.workspace, file))
      await commandLeftToThePersonByEach(place.world, `cp x ${file}`, place.workspace)
    },
  )

  it('with the current folder first, git while ./git is there is left to the person', async () => {
    plant('git')
    process.env.PATH = CURRENT_FOLDER_FIRST()
    await commandLeftToThePersonByEach(place.world, 'git status', place.workspace)
  })
})

const HAS_BWRAP = await bubblewrapRequired()

describe.runIf(HAS_BWRAP)("Assent's command sandbox, in a real bubblewrap", () => {
  const scratch = varTmpFolder('assent-found-first-sandbox-')
  let workspace = ''
  let sandbox: CommandSandbox
  let rows = 0
  const layOut = (searchPath: (workspace: string) => string) => {
    rows += 1
    workspace = join(scratch(), `ws-${rows}`)
    mkdirSync(join(workspace, 'node_modules/.bin'), { recursive: true })
    mkdirSync(join(workspace, 'bin'))
    mkdirSync(join(workspace, 'lib'))
    mkdirSync(join(workspace, 'tools'))
    process.env.PATH = searchPath(workspace)
    const home = join(scratch(), `home-${rows}`)
    mkdirSync(home)
    sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
  }
  const { sh } = sandboxedRun(() => ({ workspace, sandbox }))

  it.each(ROWS)('with %s, a command does not leave %s', async (_name, file, searchPath) => {
    layOut(searchPath)
    await sh(`cp /bin/true ${file}`, 'workspace-write')
    expect(existsSync(join(workspace, file))).toBe(false)
  })

  it.each(ROWS)('control: with %s, a command makes tools/git', async (_n, _file, searchPath) => {
    layOut(searchPath)
    const result = await sh('cp /bin/true tools/git', 'workspace-write')
    expect(result.ok, result.output).toBe(true)
    expect(existsSync(join(workspace, 'tools/git'))).toBe(true)
  })
})
