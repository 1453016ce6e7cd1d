import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { HOME_WALK_TTL_MS, HomeCredentialsIndex } from './home-credentials.ts'
import { sandboxPolicyFor } from './sandbox-policy.ts'

let home: string
const put = (relative: string) => {
  mkdirSync(path.dirname(path.join(home, relative)), { recursive: true })
  writeFileSync(path.join(home, relative), 'secret')
}

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
