import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CaseDefinition } from './case-context.ts'
import { SMOKE_CASES } from './cases/approval-cases.ts'
import { ReportWriter, markReportFailed } from './report-writer.ts'
import { REPORT_SCHEMA_VERSION, type SmokeCase } from './report-schema.ts'
import { parseVerifyArgs } from './verify-cli.ts'
import { tinyPng } from './test-support/tiny-png.ts'
import { requirements, verifyEvidence, verifyEvidenceFolder } from './verify-evidence.ts'
import { scratchFolders } from './test-support/scratch.ts'

const scratch = scratchFolders('assent-smoke-verify-')

const define = (id: string, screenshots: string[] = []): CaseDefinition => ({
  id,
  title: id,
  screenshots,
  run: async () => undefined,
})
/** A scenario of two cases, the first declaring one screenshot. */
const TWO_CASES = [define('one', ['card.png']), define('two')]

const COMMIT = 'a'.repeat(40)

function newWriter(folder: string, host: 'cdp' | 'electron' = 'cdp') {
  return new ReportWriter(folder, {
    schemaVersion: REPORT_SCHEMA_VERSION,
    host,
    hostReason: 'test',
    versions: { chromium: '1', node: 'v24', app: '0.1.0' },
    platform: 'linux-x64',
    commit: COMMIT,
    uncommittedChanges: false,
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

/** A finished run in `folder`: case `one` with card.png, then `cases`. */
function writeRun(
  folder: string,
  options: {
    shotSize?: [number, number]
    caseOk?: boolean
    cliExit?: number
    leftovers?: string[]
    keyFile?: boolean
    cases?: readonly string[]
    shotOf?: string
    host?: 'cdp' | 'electron'
  } = {},
) {
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, 'card.png'), tinyPng(...(options.shotSize ?? [2, 3])))
  writeFileSync(join(folder, 'audit-export.json'), '{}')
  const writer = newWriter(folder, options.host)
  writer.addCase({
    ...passing(options.shotOf ?? 'one', options.caseOk ?? true),
    screenshots: [{ file: 'card.png', width: 2, height: 3, caption: 'a card' }],
  })
  for (const id of options.cases ?? []) writer.addCase(passing(id))
  writer.setAudit({ file: 'audit-export.json', events: 3, verified: true, detail: 'ok' })
  const exitCode = options.cliExit ?? 0
  writer.set('auditCli', { command: 'assent audit verify', exitCode, output: '', ok: !exitCode })
  const left = options.leftovers ?? []
  writer.set('cleanup', { ok: left.length === 0, processes: [1], ports: [2], leftovers: left })
  writer.set('environment', {
    home: '/tmp/home',
    secretStore: 'file',
    keyFileInDataDir: options.keyFile ?? true,
  })
  return writer.finish({ finishedAt: new Date(1).toISOString() })
}

describe('report writing', () => {
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
    const verdict = verifyEvidence(folder, { requireAll: false, cases: TWO_CASES })
    expect(verdict.ok && verdict.report).toMatchObject({ ok: false, error: 'no Chromium' })
  })

  it('marks a passing report failed after an interruption, and keeps an earlier error', () => {
    const folder = scratch()
    expect(writeRun(folder, { cases: ['two'] }).ok).toBe(true)
    expect(markReportFailed(folder, 'interrupted')).toBe(true)
    expect(onDisk(folder)).toMatchObject({ ok: false, error: 'interrupted' })
    expect(verifyEvidence(folder, { requireAll: true, cases: TWO_CASES }).ok).toBe(false)
    const failed = scratch()
    newWriter(failed).finish({ finishedAt: new Date(2).toISOString(), error: 'no Chromium' })
    markReportFailed(failed, 'interrupted')
    expect(onDisk(failed).error).toBe('no Chromium')
    expect(markReportFailed(join(failed, 'nothing-here'), 'interrupted')).toBe(false)
  })

  it.each([
    ['`assent audit verify` failed', { cliExit: 1 }],
    ['a process was left running', { leftovers: ['process 42'] }],
    ['the key was not in the data folder', { keyFile: false }],
  ])('is not ok when %s, even with every case passing', (_what, options) => {
    const folder = scratch()
    expect(writeRun(folder, { ...options, cases: ['two'] }).ok).toBe(false)
    expect(onDisk(folder).ok).toBe(false)
    expect(verifyEvidence(folder, { requireAll: true, cases: TWO_CASES }).ok).toBe(false)
  })

  it('refuses a report edited to claim success over a failed cleanup or assertion', () => {
    for (const options of [{ leftovers: ['port 9'] }, { caseOk: false }]) {
      const folder = scratch()
      writeRun(folder, options)
      const report = onDisk(folder)
      report.ok = true
      writeFileSync(join(folder, 'report.json'), JSON.stringify(report))
      expect(verifyEvidence(folder, { requireAll: false, cases: TWO_CASES }).ok).toBe(false)
    }
  })
})

describe('evidence verification', () => {
  it('requires every case the scenario defines, by id, whatever the count', () => {
    const folder = scratch()
    writeRun(folder)
    const verdict = verifyEvidence(folder, { requireAll: true, cases: TWO_CASES })
    expect(!verdict.ok && verdict.problems).toEqual(['the case two did not run'])
    const three = [...TWO_CASES, define('three')]
    const complete = scratch()
    writeRun(complete, { cases: ['two'] })
    expect(verifyEvidence(complete, { requireAll: true, cases: TWO_CASES }).ok).toBe(true)
    // A case added to the scenario is required at once.
    const added = verifyEvidence(complete, { requireAll: true, cases: three })
    expect(!added.ok && added.problems).toEqual(['the case three did not run'])
  })

  it("requires each case's declared screenshots from that case", () => {
    const folder = scratch()
    // card.png was taken, but by `two`, not by `one` that declares it.
    writeRun(folder, { shotOf: 'two', cases: ['one'] })
    const verdict = verifyEvidence(folder, { requireAll: true, cases: TWO_CASES })
    expect(!verdict.ok && verdict.problems).toEqual(['card.png (case one) was not taken'])
  })

  it('takes its requirements from the case list: every case, with its screenshots', () => {
    const required = requirements()
    expect(required.map((entry) => entry.id)).toEqual(SMOKE_CASES.map((entry) => entry.id))
    expect(new Set(required.map((entry) => entry.id)).size).toBe(SMOKE_CASES.length)
    const shots = required.flatMap((entry) => entry.screenshots)
    expect(new Set(shots).size).toBe(shots.length)
    expect(shots).toContain('protected-approval.png')
  })

  it('flags a screenshot whose size differs from the report, or that is missing', () => {
    const folder = scratch()
    writeRun(folder, { shotSize: [4, 4] })
    const verdict = verifyEvidence(folder, { requireAll: false, cases: TWO_CASES })
    expect(!verdict.ok && verdict.problems.join()).toMatch(/4×4/)
    rmSync(join(folder, 'card.png'))
    expect(verifyEvidence(folder, { requireAll: false, cases: TWO_CASES }).ok).toBe(false)
  })

  it('marks the run failed when a case failed, and full verification refuses it', () => {
    const folder = scratch()
    expect(writeRun(folder, { caseOk: false, cases: ['two'] }).ok).toBe(false)
    const verdict = verifyEvidence(folder, { requireAll: true, cases: TWO_CASES })
    expect(!verdict.ok && verdict.problems).toContain('the case one failed')
  })

  it("verifies each host's folder of an evidence folder, and fails one with none", () => {
    const evidence = scratch()
    expect(verifyEvidenceFolder(evidence, { requireAll: true, cases: TWO_CASES })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/no report.json/)],
    })
    writeRun(join(evidence, 'cdp'), { cases: ['two'] })
    const one = verifyEvidenceFolder(evidence, { requireAll: true, cases: TWO_CASES })
    expect(one.ok).toBe(true)
    expect(one.hosts.map((host) => host.host)).toEqual(['cdp'])
    writeRun(join(evidence, 'electron'), { host: 'electron' })
    const both = verifyEvidenceFolder(evidence, { requireAll: true, cases: TWO_CASES })
    expect(both.problems).toEqual(['electron: the case two did not run'])
    // A host's folder given directly is verified as it is.
    expect(
      verifyEvidenceFolder(join(evidence, 'cdp'), { requireAll: true, cases: TWO_CASES }).ok,
    ).toBe(true)
  })

  it("refuses a report whose host is not its folder's", () => {
    const evidence = scratch()
    writeRun(join(evidence, 'electron'), { cases: ['two'] })
    expect(verifyEvidenceFolder(evidence, { requireAll: true, cases: TWO_CASES }).problems).toEqual(
      ['electron: the report is for host cdp, in the electron folder'],
    )
  })

  it('refuses evidence made from another commit', () => {
    const evidence = scratch()
    writeRun(join(evidence, 'cdp'), { cases: ['two'] })
    const options = { requireAll: true, cases: TWO_CASES }
    expect(verifyEvidenceFolder(evidence, { ...options, commit: COMMIT }).ok).toBe(true)
    expect(verifyEvidenceFolder(evidence, { ...options, commit: 'b'.repeat(40) }).problems).toEqual(
      [`cdp: the run was made from commit ${COMMIT}, not from this checkout's ${'b'.repeat(40)}`],
    )
  })

  it('fails when a host named in --hosts left no evidence', () => {
    const evidence = scratch()
    writeRun(join(evidence, 'cdp'), { cases: ['two'] })
    const options = { requireAll: true, cases: TWO_CASES }
    expect(verifyEvidenceFolder(evidence, { ...options, hosts: ['cdp'] }).ok).toBe(true)
    expect(
      verifyEvidenceFolder(evidence, { ...options, hosts: ['cdp', 'electron'] }).problems,
    ).toEqual([expect.stringMatching(/^no evidence for host electron/)])
    // One host's folder given directly counts as the host its report names.
    expect(
      verifyEvidenceFolder(join(evidence, 'cdp'), { ...options, hosts: ['electron'] }).ok,
    ).toBe(false)
  })
})

describe('smoke:verify arguments', () => {
  it('reads --hosts as a list of known hosts and refuses any other', () => {
    expect(parseVerifyArgs(['/ev', '--hosts', 'cdp,electron'])).toEqual({
      folder: '/ev',
      hosts: ['cdp', 'electron'],
      partial: false,
    })
    expect(() => parseVerifyArgs(['/ev', '--hosts', 'cdp,chrome'])).toThrow(/hosts/)
    expect(() => parseVerifyArgs(['ev'])).toThrow('absolute')
  })
})
