import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { HOME_WALK_ENTRIES, HOME_WALK_TTL_MS, HomeCredentialsIndex } from './home-credentials.ts'
import { sandboxPolicyFor } from './sandbox-policy.ts'

let home: string
const put = (relative: string) => {
  mkdirSync(path.dirname(path.join(home, relative)), { recursive: true })
  writeFileSync(path.join(home, relative), 'secret')
}

/** One more empty file in `relative` than the walk reads entries. */
const flood = (relative: string) => {
  mkdirSync(path.join(home, relative), { recursive: true })
  execFileSync('sh', ['-c', `seq 1 ${HOME_WALK_ENTRIES + 1} | xargs touch`], {
    cwd: path.join(home, relative),
  })
}
/** Whether `candidate` is hidden by one of `hidden` (itself or inside it). */
const covered = (candidate: string, hidden: readonly string[]) =>
  hidden.some((each) => candidate === each || candidate.startsWith(each + path.sep))

beforeEach(() => {
  home = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-home-')))
})

describe('HomeCredentialsIndex', () => {
  it('finds credentials below the top, as the read rule names them, and nothing else', async () => {
    put('.cargo/credentials.toml')
    put('snap/firefox/common/.mozilla/firefox/p/logins.json')
    put('src/app/.env')
    put('src/app/readme.md')
    put('node_modules/pkg/.env')
    put('.netrc')
    const { paths, truncated } = await new HomeCredentialsIndex(home).current()
    expect(truncated).toBe(false)
    expect([...paths].sort()).toEqual(
      ['.cargo/credentials.toml', 'snap/firefox/common/.mozilla', 'src/app/.env'].map((relative) =>
        path.join(home, relative),
      ),
    )
  })

  it('walks again only once its findings are older than the time they stand', async () => {
    let now = 0
    const index = new HomeCredentialsIndex(home, () => now)
    expect((await index.current()).paths).toEqual([])
    put('src/app/.env')
    now = HOME_WALK_TTL_MS
    expect((await index.current()).paths).toEqual([])
    now = HOME_WALK_TTL_MS + 1
    expect((await index.current()).paths).toEqual([path.join(home, 'src/app/.env')])
  })
})

describe('HomeCredentialsIndex, in a home folder larger than one walk reads', () => {
  it('neither walks nor counts the folders the command may write, which it could fill', async () => {
    put('code/client/app/.env')
    flood('proj/f')
    const found = await new HomeCredentialsIndex(home).current([path.join(home, 'proj')])
    expect(found.truncated).toBe(false)
    expect(found.paths).toEqual([path.join(home, 'code/client/app/.env')])
  }, 60_000)

  it('walks a writable root the next command may not write, for that command', async () => {
    put('proj/.env')
    const index = new HomeCredentialsIndex(home)
    expect((await index.current([path.join(home, 'proj')])).paths).toEqual([])
    expect((await index.current([])).paths).toEqual([path.join(home, 'proj/.env')])
  })

  it('hides each folder it did not finish when it stops, so no credential past it shows', async () => {
    put('code/client/app/.env')
    put('snap/firefox/common/.mozilla/firefox/p/logins.json')
    flood('big')
    const found = await new HomeCredentialsIndex(home).current([path.join(home, 'proj')])
    expect(found.truncated).toBe(true)
    expect(found.unhideable).toBe(false)
    const hidden = [...found.paths, ...found.unwalked]
    expect(covered(path.join(home, 'code/client/app/.env'), hidden)).toBe(true)
    expect(covered(path.join(home, 'snap/firefox/common/.mozilla'), hidden)).toBe(true)
  }, 60_000)

  it('cannot hide what it did not finish when that holds a writable root: says so', async () => {
    mkdirSync(path.join(home, 'code/proj'), { recursive: true })
    flood('')
    const found = await new HomeCredentialsIndex(home).current([path.join(home, 'code/proj')])
    expect(found.truncated).toBe(true)
    expect(found.unhideable).toBe(true)
  }, 60_000)

  it('hides a folder above many it did not finish, unless that holds a writable root', async () => {
    for (let i = 1; i <= 6; i += 1) mkdirSync(path.join(home, `p/q/r${i}`), { recursive: true })
    const limits = { entries: 5, hiddenAtMost: 2 }
    const wide = await new HomeCredentialsIndex(home, undefined, limits).current([])
    expect(wide).toMatchObject({ truncated: true, unhideable: false })
    expect(wide.unwalked).toEqual([path.join(home, 'p/q')])
    const exact = await new HomeCredentialsIndex(home, undefined, {
      entries: 5,
      hiddenAtMost: 10,
    }).current([])
    expect([...exact.unwalked].sort()).toEqual(
      [1, 2, 3, 4, 5, 6].map((i) => path.join(home, `p/q/r${i}`)),
    )
    const root = path.join(home, 'p/q/r1')
    const held = await new HomeCredentialsIndex(home, undefined, limits).current([root])
    expect(held).toMatchObject({ truncated: true, unhideable: true })
  })
})

describe('sandboxPolicyFor with credentials deeper in the home folder', () => {
  it('hides each, but not one inside a folder the command may write (a project’s own .env)', () => {
    put('src/other/.env')
    put('src/app/.env')
    const policy = sandboxPolicyFor({
      sandboxMode: 'workspace-write',
      workspace: path.join(home, 'src/app'),
      extraWritableRoots: [],
      readOnlyInside: [],
      home,
      assentPrivate: [],
      deepCredentials: [path.join(home, 'src/other/.env'), path.join(home, 'src/app/.env')],
    })
    const hidden = policy.hidden.map((entry) => entry.path)
    expect(hidden).toContain(path.join(home, 'src/other/.env'))
    expect(hidden).not.toContain(path.join(home, 'src/app/.env'))
  })
})
