import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { UsageError, parseSmokeArgs } from './cli-args.ts'
import { checkEvidencePath } from './evidence-path.ts'
import {
  HostUnavailable,
  chooseHost,
  findElectronBinary,
  provideElectronBinary,
} from './host-choice.ts'
import { pngSize } from './png.ts'
import { ReportWriter } from './report-writer.ts'
import type { SmokeCase } from './report-schema.ts'
import { REQUIRED_CASES, verifyEvidence } from './verify-evidence.ts'

const made: string[] = []
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'assent-smoke-unit-'))
  made.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

// A 2×3 PNG: signature, then an IHDR chunk header with width 2, height 3.
function tinyPng(width = 2, height = 3): Buffer {
  const header = Buffer.alloc(24)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0)
  header.writeUInt32BE(13, 8)
  header.write('IHDR', 12, 'ascii')
  header.writeUInt32BE(width, 16)
  header.writeUInt32BE(height, 20)
  return header
}

describe('smoke argument parsing', () => {
  it('accepts the documented command line', () => {
    expect(
      parseSmokeArgs(['--approvals', '--evidence', '/tmp/e', '--host', 'cdp', '--keep'], {}),
    ).toEqual({
      suite: 'approvals',
      evidence: '/tmp/e',
      host: 'cdp',
      keep: true,
      force: false,
      build: false,
    })
    expect(parseSmokeArgs(['--build', '--approvals', '--evidence', '/tmp/e'], {}).build).toBe(true)
    expect(parseSmokeArgs(['--approvals', '--evidence=/tmp/e'], {}).evidence).toBe('/tmp/e')
    expect(parseSmokeArgs(['--approvals'], { ASSENT_APPROVAL_EVIDENCE: '/tmp/x' }).evidence).toBe(
      '/tmp/x',
    )
  })

  it.each([
    [['--evidence', '/tmp/e'], /--approvals/],
    [['--approvals'], /required/],
    [['--approvals', '--evidence', 'relative/dir'], /absolute/],
    [['--approvals', '--evidence'], /needs a value/],
    [['--approvals', '--evidence', '/tmp/e', '--host', 'firefox'], /electron or cdp/],
    [['--approvals', '--evidence', '/tmp/e', '--verbose'], /unknown argument/],
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

describe('host choice', () => {
  it('prefers Electron when its binary exists and says why', () => {
    expect(chooseHost(undefined, '/opt/electron/electron')).toMatchObject({
      host: 'electron',
      reason: expect.stringContaining('/opt/electron'),
    })
    expect(chooseHost(undefined, undefined)).toMatchObject({
      host: 'cdp',
      reason: expect.stringContaining('no Electron binary'),
    })
    expect(chooseHost('cdp', '/opt/electron/electron').host).toBe('cdp')
  })

  it('takes --host electron when the binary exists, and refuses it with what to install when not', () => {
    expect(chooseHost('electron', '/opt/electron/electron')).toEqual({
      host: 'electron',
      reason: 'requested with --host electron',
      electronBinary: '/opt/electron/electron',
    })
    expect(() => chooseHost('electron', undefined)).toThrow(HostUnavailable)
    expect(() => chooseHost('electron', undefined)).toThrow(
      /npm install.*ELECTRON_OVERRIDE_DIST_PATH.*--host cdp/s,
    )
  })

  it('finds the binary ELECTRON_OVERRIDE_DIST_PATH names, and nothing when it is not there', () => {
    const dist = scratch()
    const env = { ELECTRON_OVERRIDE_DIST_PATH: dist }
    const project = scratch()
    expect(findElectronBinary(project, env)).toBeUndefined()
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

  it("fetches the binary with the electron package's installer only when --host electron asks for it", () => {
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
    expect(provideElectronBinary(undefined, project, {})).toBeUndefined()
    expect(provideElectronBinary('cdp', project, {})).toBeUndefined()
    expect(provideElectronBinary('electron', project, {})).toBe(join(pkg, 'dist', 'electron'))
  })

  it('refuses --host electron, naming what to do, when the download fails', () => {
    const project = scratch()
    const pkg = join(project, 'node_modules', 'electron')
    mkdirSync(pkg, { recursive: true })
    writeFileSync(join(pkg, 'install.js'), 'process.exit(1)')
    const binary = provideElectronBinary('electron', project, {})
    expect(binary).toBeUndefined()
    expect(() => chooseHost('electron', binary)).toThrow(
      /npm install.*ELECTRON_OVERRIDE_DIST_PATH/s,
    )
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
})

describe('report writing and evidence verification', () => {
  function newWriter(folder: string) {
    return new ReportWriter(folder, {
      schemaVersion: 2,
      host: 'cdp',
      hostReason: 'test',
      versions: { chromium: '1', node: 'v24', app: '0.1.0' },
      platform: 'linux-x64',
      startedAt: new Date(0).toISOString(),
      environment: { home: '/tmp/home', secretStore: 'file' },
    })
  }
  const passing = (id: string, ok = true): SmokeCase => ({
    id,
    title: id,
    ok,
    durationMs: 5,
    assertions: [{ name: 'it holds', ok, detail: '' }],
    screenshots: [],
  })
  const onDisk = (folder: string) => JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8'))

  function writeRun(
    folder: string,
    options: {
      shotSize?: [number, number]
      caseOk?: boolean
      cliExit?: number
      leftovers?: string[]
      keyFile?: boolean
      cases?: readonly string[]
    } = {},
  ) {
    writeFileSync(join(folder, 'card.png'), tinyPng(...(options.shotSize ?? [2, 3])))
    writeFileSync(join(folder, 'audit-export.json'), '{}')
    const writer = newWriter(folder)
    writer.addCase({
      ...passing('one', options.caseOk ?? true),
      screenshots: [{ file: 'card.png', width: 2, height: 3, caption: 'a card' }],
    })
    for (const id of options.cases ?? []) writer.addCase(passing(id))
    writer.setAudit({ file: 'audit-export.json', events: 3, verified: true, detail: 'ok' })
    const exitCode = options.cliExit ?? 0
    writer.set('auditCli', {
      command: 'assent audit verify',
      exitCode,
      output: '',
      ok: exitCode === 0,
    })
    const left = options.leftovers ?? []
    writer.set('cleanup', { ok: left.length === 0, processes: [1], ports: [2], leftovers: left })
    writer.set('environment', {
      home: '/tmp/home',
      secretStore: 'file',
      keyFileInDataDir: options.keyFile ?? true,
    })
    return writer.finish({ finishedAt: new Date(1).toISOString() })
  }

  it('rewrites report.json after every case and on finish with an error', () => {
    const folder = scratch()
    const writer = newWriter(folder)
    expect(onDisk(folder)).toMatchObject({ ok: false, cases: [] })
    writer.addCase(passing('first'))
    expect(onDisk(folder).cases.map((entry: SmokeCase) => entry.id)).toEqual(['first'])
    writer.addCase(passing('second'))
    expect(onDisk(folder).cases).toHaveLength(2)
    writer.finish({ finishedAt: new Date(2).toISOString(), error: 'Chromium was not found' })
    expect(onDisk(folder)).toMatchObject({ ok: false, error: 'Chromium was not found' })
  })

  it('leaves a report when the host never started (no case ran)', () => {
    const folder = scratch()
    newWriter(folder).finish({ finishedAt: new Date(2).toISOString(), error: 'no Chromium' })
    const verdict = verifyEvidence(folder, { requireAll: false })
    expect(verdict.ok && verdict.report).toMatchObject({ ok: false, error: 'no Chromium' })
  })

  it.each([
    ['`assent audit verify` failed', { cliExit: 1 }],
    ['a process was left running', { leftovers: ['process 42'] }],
    ['the key was not in the data dir', { keyFile: false }],
  ])('is not ok when %s, even with every case passing', (_what, options) => {
    const folder = scratch()
    expect(writeRun(folder, options).ok).toBe(false)
    expect(onDisk(folder).ok).toBe(false)
    const verdict = verifyEvidence(folder, { requireAll: true })
    expect(verdict.ok).toBe(false)
  })

  it('refuses a report edited to claim success over a failed cleanup', () => {
    const folder = scratch()
    writeRun(folder, { leftovers: ['port 9'] })
    const report = onDisk(folder)
    report.ok = true
    writeFileSync(join(folder, 'report.json'), JSON.stringify(report))
    const verdict = verifyEvidence(folder, { requireAll: false })
    expect(!verdict.ok && verdict.problems.join()).toMatch(/cleanup/)
  })

  it('full verification requires every one of the thirteen case topics, by id', () => {
    const folder = scratch()
    writeRun(folder, { cases: REQUIRED_CASES.slice(1) })
    const verdict = verifyEvidence(folder, { requireAll: true })
    expect(!verdict.ok && verdict.problems).toContain(`the case ${REQUIRED_CASES[0]} did not run`)
    const all = scratch()
    writeRun(all, { cases: REQUIRED_CASES })
    const complete = verifyEvidence(all, { requireAll: true })
    expect(complete.ok ? [] : complete.problems.filter((p) => p.startsWith('the case'))).toEqual([])
    expect(REQUIRED_CASES).toHaveLength(13)
  })

  it('writes a valid report after every case and verifies it with its screenshots', () => {
    const folder = scratch()
    const report = writeRun(folder)
    expect(report.ok).toBe(true)
    expect(JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')).cases).toHaveLength(1)
    expect(verifyEvidence(folder, { requireAll: false }).ok).toBe(true)
  })

  it('flags a screenshot whose size differs from the report, or that is missing', () => {
    const folder = scratch()
    writeRun(folder, { shotSize: [4, 4] })
    const verdict = verifyEvidence(folder, { requireAll: false })
    expect(verdict.ok).toBe(false)
    expect(!verdict.ok && verdict.problems.join()).toMatch(/4×4/)
    rmSync(join(folder, 'card.png'))
    expect(verifyEvidence(folder, { requireAll: false }).ok).toBe(false)
  })

  it('marks the run failed when a case failed, and full verification refuses it', () => {
    const folder = scratch()
    expect(writeRun(folder, { caseOk: false }).ok).toBe(false)
    const verdict = verifyEvidence(folder, { requireAll: true })
    expect(!verdict.ok && verdict.problems.join()).toMatch(/failed/)
  })

  it('refuses a report edited to claim success over a failed assertion', () => {
    const folder = scratch()
    writeRun(folder, { caseOk: false })
    const report = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8'))
    report.ok = true
    writeFileSync(join(folder, 'report.json'), JSON.stringify(report))
    expect(verifyEvidence(folder, { requireAll: false }).ok).toBe(false)
  })

  it('reads PNG sizes and refuses other files', () => {
    const folder = scratch()
    writeFileSync(join(folder, 'a.png'), tinyPng(7, 9))
    writeFileSync(join(folder, 'b.png'), 'not a png at all, really not')
    expect(pngSize(join(folder, 'a.png'))).toEqual({ width: 7, height: 9 })
    expect(pngSize(join(folder, 'b.png'))).toBeUndefined()
  })
})
