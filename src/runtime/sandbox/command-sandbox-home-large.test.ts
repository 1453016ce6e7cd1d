import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { HOME_WALK_ENTRIES, HOME_WALK_TTL_MS } from './home-credentials.ts'
import { sandboxedRun } from './test-support/sandboxed-run.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

// A home folder larger than one walk for credentials reads
// (home-credentials.ts), in a real bubblewrap: a command that fills its
// own workspace does not stop the walk, and where the walk does stop,
// what it did not read is hidden, or the command does not start; never
// shown.

const HAS_BWRAP = await bubblewrapRequired()
const SECRET = 'OTHER-PROJECT-SECRET-not-a-real-one'
const DEEP = ['code/client/app/.env', 'snap/firefox/common/.mozilla/firefox/p.default/logins.json']
const READ = DEEP.map((deep) => `cat ~/${deep}`).join('; ') + '; true'
const scratch = varTmpFolder('assent-sandbox-home-large-')

/** A home folder with credentials deeper than its top, and a workspace in it. */
async function homeWith(name: string, workspace: string) {
  const home = path.join(scratch(), name)
  for (const deep of DEEP) {
    await mkdir(path.dirname(path.join(home, deep)), { recursive: true })
    await writeFile(path.join(home, deep), SECRET)
  }
  await mkdir(path.join(home, workspace), { recursive: true })
  const sandbox = new CommandSandbox({
    home,
    env: { ...process.env, HOME: home },
    assentPrivate: [],
  })
  return { home, ws: path.join(home, workspace), sandbox }
}

/** One more empty file in `folder` than the walk reads entries. */
async function flood(folder: string) {
  await mkdir(folder, { recursive: true })
  execFileSync('sh', ['-c', `seq 1 ${HOME_WALK_ENTRIES + 1} | xargs touch`], { cwd: folder })
}

let place: { ws: string; sandbox: CommandSandbox }
const { sh } = sandboxedRun(() => ({ workspace: place.ws, sandbox: place.sandbox }))

afterEach(() => {
  vi.restoreAllMocks()
})

describe.runIf(HAS_BWRAP)('a home folder larger than the credential walk reads', () => {
  it('a command that fills its workspace still cannot read a credential deeper in the home', async () => {
    place = await homeWith('filled', 'proj')
    expect((await sh(READ, 'workspace-write')).output).not.toContain(SECRET)
    const filled = await sh(
      `mkdir -p f && cd f && seq 1 ${HOME_WALK_ENTRIES + 1} | xargs touch`,
      'workspace-write',
    )
    expect(filled.ok, filled.output).toBe(true)
    // The next walk: the findings of the first are older than they stand.
    const real = performance.now.bind(performance)
    vi.spyOn(performance, 'now').mockImplementation(() => real() + HOME_WALK_TTL_MS + 1_000)
    expect((await sh(READ, 'workspace-write')).output).not.toContain(SECRET)
  }, 120_000)

  it('hides what the walk did not read, outside the workspace, and the command still runs', async () => {
    place = await homeWith('large', 'proj')
    await flood(path.join(path.dirname(place.ws), 'big'))
    const result = await sh(`${READ}; echo made > made.txt && cat made.txt`, 'workspace-write')
    expect(result.output).not.toContain(SECRET)
    expect(result.ok, result.output).toBe(true)
    expect(result.output).toContain('made')
  }, 120_000)

  it('refuses the command, saying why, when what the walk did not read holds the workspace', async () => {
    place = await homeWith('crowded', 'code/proj')
    await flood(path.dirname(path.dirname(place.ws)))
    const result = await sh(READ, 'workspace-write')
    expect(result.ok).toBe(false)
    expect(result.output).not.toContain(SECRET)
    expect(result.output).toMatch(/home folder/)
    // In a read-only room too, where nothing is walked around: hidden, the
    // workspace would be gone from the command.
    const readOnly = await sh(READ, 'read-only')
    expect(readOnly.ok).toBe(false)
    expect(readOnly.output).toMatch(/home folder/)
    // Under full access nothing is hidden, and nothing is walked.
    expect((await sh(READ, 'danger-full-access')).output).toContain(SECRET)
  }, 120_000)
})
