import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { UsageError, parseSmokeArgs } from './cli-args.ts'
import { checkEvidencePath } from './evidence-path.ts'
import { ELECTRON_MISSING, findElectronBinary, provideElectronBinary } from './host-choice.ts'
import { pngSize } from './png.ts'
import { tinyPng } from './test-support/tiny-png.ts'
import { scratchFolders } from './test-support/scratch.ts'

const scratch = scratchFolders('assent-smoke-unit-')

describe('smoke argument parsing', () => {
  it('accepts the documented command line and hands Playwright what is its own', () => {
    expect(
      parseSmokeArgs(['--approvals', '--evidence', '/tmp/e', '--host', 'cdp', '--keep'], {}),
    ).toEqual({ evidence: '/tmp/e', keep: true, force: false, playwright: ['--project=cdp'] })
    expect(
      parseSmokeArgs(['--evidence=/tmp/e', '--grep', 'manual-allow', '--project', 'electron'], {})
        .playwright,
    ).toEqual(['--grep', 'manual-allow', '--project=electron'])
    expect(parseSmokeArgs(['-g', 'persistence', '--list', '--trace', 'on'], {}).playwright).toEqual(
      ['-g', 'persistence', '--list', '--trace', 'on'],
    )
    expect(parseSmokeArgs(['--approvals'], { ASSENT_APPROVAL_EVIDENCE: '/tmp/x' }).evidence).toBe(
      '/tmp/x',
    )
    expect(parseSmokeArgs([], {}).evidence).toBeUndefined()
  })

  it.each([
    [['--evidence', 'relative/dir'], /absolute/],
    [['--evidence'], /needs a value/],
    [['--grep'], /needs a value/],
    [['--host', 'firefox'], /cdp, electron/],
    [['--project', 'webkit'], /cdp, electron/],
    [['--verbose'], /unknown argument/],
    [['--workers', '4'], /unknown argument/],
    [['--retries=2'], /unknown argument/],
  ])('refuses %j with a message naming the problem', (argv, message) => {
    expect(() => parseSmokeArgs(argv, {})).toThrow(UsageError)
    expect(() => parseSmokeArgs(argv, {})).toThrow(message)
  })

  it('refuses a flag and an environment variable that disagree', () => {
    expect(() =>
      parseSmokeArgs(['--approvals', '--evidence', '/a'], { ASSENT_APPROVAL_EVIDENCE: '/b' }),
    ).toThrow(/different/)
  })
})

describe('the evidence-path guard', () => {
  it('refuses a folder inside the git worktree, also through a symlink', () => {
    const root = scratch()
    const repo = join(root, 'repo')
    mkdirSync(join(repo, '.git'), { recursive: true })
    expect(() => checkEvidencePath(join(repo, 'evidence', 'run'), repo, false)).toThrow(
      /outside the git worktree/,
    )
    symlinkSync(repo, join(root, 'link'))
    expect(() => checkEvidencePath(join(root, 'link', 'evidence'), repo, false)).toThrow(
      /outside the git worktree/,
    )
  })

  it('refuses a non-empty folder unless forced, and accepts an empty or new one', () => {
    const root = scratch()
    const repo = join(root, 'repo')
    mkdirSync(join(repo, '.git'), { recursive: true })
    const evidence = join(root, 'evidence')
    expect(checkEvidencePath(evidence, repo, false)).toBe(evidence)
    mkdirSync(evidence)
    expect(checkEvidencePath(evidence, repo, false)).toBe(evidence)
    writeFileSync(join(evidence, 'old.png'), 'x')
    expect(() => checkEvidencePath(evidence, repo, false)).toThrow(/not empty/)
    expect(checkEvidencePath(evidence, repo, true)).toBe(evidence)
  })

  it('refuses a relative path', () => {
    expect(() => checkEvidencePath('evidence', scratch(), false)).toThrow(/absolute/)
  })
})

describe("the electron project's binary", () => {
  it('finds the binary ELECTRON_OVERRIDE_DIST_PATH names, and nothing when it is not there', () => {
    const dist = scratch()
    const env = { ELECTRON_OVERRIDE_DIST_PATH: dist }
    const project = scratch()
    expect(findElectronBinary(project, env)).toBeUndefined()
    mkdirSync(join(dist, 'electron'))
    expect(findElectronBinary(project, env)).toBeUndefined()
    rmSync(join(dist, 'electron'), { recursive: true })
    writeFileSync(join(dist, 'electron'), '')
    expect(findElectronBinary(project, env)).toBe(join(dist, 'electron'))
  })

  it('finds the executable where each platform keeps it in an override folder', () => {
    const dist = scratch()
    const env = { ELECTRON_OVERRIDE_DIST_PATH: dist }
    const mac = join(dist, 'Electron.app', 'Contents', 'MacOS')
    mkdirSync(mac, { recursive: true })
    writeFileSync(join(mac, 'Electron'), '')
    writeFileSync(join(dist, 'electron.exe'), '')
    expect(findElectronBinary(scratch(), env, 'darwin')).toBe(join(mac, 'Electron'))
    expect(findElectronBinary(scratch(), env, 'win32')).toBe(join(dist, 'electron.exe'))
    expect(findElectronBinary(scratch(), env, 'linux')).toBeUndefined()
  })

  it("fetches the binary with the electron package's installer only when the electron project is asked for", () => {
    const project = scratch()
    const pkg = join(project, 'node_modules', 'electron')
    mkdirSync(pkg, { recursive: true })
    // Stands in for the package's installer (which downloads the release):
    // it unpacks a binary into dist/ and names it in path.txt.
    writeFileSync(
      join(pkg, 'install.js'),
      `const fs = require('node:fs'); const path = require('node:path')
fs.mkdirSync(path.join(__dirname, 'dist'), { recursive: true })
fs.writeFileSync(path.join(__dirname, 'dist', 'electron'), '')
fs.writeFileSync(path.join(__dirname, 'path.txt'), 'electron')`,
    )
    expect(provideElectronBinary(false, project, {})).toBeUndefined()
    expect(provideElectronBinary(true, project, {})).toBe(join(pkg, 'dist', 'electron'))
  })

  it('finds nothing when the download fails, and the skip says what to do', () => {
    const project = scratch()
    const pkg = join(project, 'node_modules', 'electron')
    mkdirSync(pkg, { recursive: true })
    writeFileSync(join(pkg, 'install.js'), 'process.exit(1)')
    expect(provideElectronBinary(true, project, {})).toBeUndefined()
    expect(ELECTRON_MISSING).toMatch(/npm install.*ELECTRON_OVERRIDE_DIST_PATH/s)
  })

  it("finds the binary the electron package's path.txt names", () => {
    const project = scratch()
    const pkg = join(project, 'node_modules', 'electron')
    mkdirSync(join(pkg, 'dist'), { recursive: true })
    writeFileSync(join(pkg, 'path.txt'), 'electron\n')
    expect(findElectronBinary(project, {})).toBeUndefined()
    writeFileSync(join(pkg, 'dist', 'electron'), '')
    expect(findElectronBinary(project, {})).toBe(join(pkg, 'dist', 'electron'))
  })

  it('says why it skips: what to install, and what runs instead', () => {
    expect(ELECTRON_MISSING).toMatch(/npm install.*ELECTRON_OVERRIDE_DIST_PATH.*cdp project/s)
  })
})

describe('PNG sizes', () => {
  it('reads PNG sizes and refuses other files', () => {
    const folder = scratch()
    writeFileSync(join(folder, 'a.png'), tinyPng(7, 9))
    writeFileSync(join(folder, 'b.png'), 'not a png at all, really not')
    expect(pngSize(join(folder, 'a.png'))).toEqual({ width: 7, height: 9 })
    expect(pngSize(join(folder, 'b.png'))).toBeUndefined()
  })
})
