import { TIMELINE_PAGE_TURNS } from '../src/runtime/rooms/room-timeline.ts'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BUTTON_ENABLE_DELAY_MS } from '../src/common/consent-view.ts'
import { CONSENT_LIFETIME_MS } from '../src/consent/consent-token.ts'
import { DEFAULT_APPROVAL_TTL_MS } from '../src/contracts/approval.ts'
import { QUESTION_PHASE_MS } from '../src/contracts/input-request.ts'
import { PermissionModeSchema } from '../src/contracts/policy-axes.ts'
import { MAX_ACTIONS_PER_STEP, MAX_AGENT_TEXT_CHARS } from '../src/runtime/agent/agent-model.ts'
import { MAX_AGENT_STEPS } from '../src/runtime/agent/agent-runner.ts'
import { DEFAULT_TOOL_TIMEOUT_MS } from '../src/runtime/agent/tool-call-runner.ts'
import { WEBHOOK_TIMESTAMP_WINDOW_MS } from '../src/runtime/approver/webhook-approver.ts'
import { MAX_EXTERNAL_TEXT_CHARS } from '../src/runtime/external-agents/external-agent-port.ts'
import { AGENT_IDLE_MS } from '../src/runtime/external-turns/external-agent-backend.ts'
import { REVIEWER_TIMEOUT_MS } from '../src/runtime/gate/approval-requester.ts'
import { MAX_BODY_BYTES } from '../src/runtime/server/http-kit.ts'
import { MAX_WRITE_CONTENT_CHARS } from '../src/runtime/tools/change-tools.ts'
import { MAX_COMMAND_TIMEOUT_MS } from '../src/runtime/tools/run-command.ts'
import { MAX_PATH_CHARS, MAX_TOOL_OUTPUT_BYTES } from '../src/runtime/tools/tool-types.ts'
import { SMOKE_CASES } from '../scripts/smoke/cases/approval-cases.ts'
import { DOCS_IMAGES } from '../scripts/docs-images.ts'
import { projectDocs } from '../scripts/lint/docs-links.ts'

// The facts the docs take from the code, held to it: docs/reference.md's
// tables and the counts any page states. A changed constant, default
// folder, variable, mode or smoke case fails here until the docs say so.

const ROOT = resolve(import.meta.dirname, '..')
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const REFERENCE = read('docs/reference.md')

/** Every doc a reader is pointed at: README, SECURITY and docs/ (zh-CN too). */
function allDocs(): string[] {
  const zh = readdirSync(join(ROOT, 'docs'), { withFileTypes: true }).some(
    (entry) => entry.name === 'zh-CN' && entry.isDirectory(),
  )
    ? readdirSync(join(ROOT, 'docs/zh-CN'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/zh-CN/${name}`)
    : []
  return [...projectDocs(ROOT), 'SECURITY.md', ...zh]
}

/** The rows of the table under `heading` in docs/reference.md, as cells. */
function tableRows(heading: string): string[][] {
  const start = REFERENCE.indexOf(`\n## ${heading}\n`)
  expect(start, heading).toBeGreaterThan(-1)
  const end = REFERENCE.indexOf('\n## ', start + 1)
  return REFERENCE.slice(start, end === -1 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .slice(1)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
}

const grouped = (n: number) => n.toLocaleString('en-US')
const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`)

const LIMITS: Record<string, string> = {
  DEFAULT_APPROVAL_TTL_MS: seconds(DEFAULT_APPROVAL_TTL_MS),
  QUESTION_PHASE_MS: seconds(QUESTION_PHASE_MS),
  BUTTON_ENABLE_DELAY_MS: seconds(BUTTON_ENABLE_DELAY_MS),
  CONSENT_LIFETIME_MS: seconds(CONSENT_LIFETIME_MS),
  MAX_BODY_BYTES: `${grouped(MAX_BODY_BYTES)} bytes`,
  MAX_AGENT_TEXT_CHARS: `${grouped(MAX_AGENT_TEXT_CHARS)} characters`,
  MAX_EXTERNAL_TEXT_CHARS: `${grouped(MAX_EXTERNAL_TEXT_CHARS)} characters`,
  MAX_AGENT_STEPS: String(MAX_AGENT_STEPS),
  TIMELINE_PAGE_TURNS: `${TIMELINE_PAGE_TURNS} turns`,
  MAX_ACTIONS_PER_STEP: String(MAX_ACTIONS_PER_STEP),
  DEFAULT_TOOL_TIMEOUT_MS: seconds(DEFAULT_TOOL_TIMEOUT_MS),
  MAX_COMMAND_TIMEOUT_MS: seconds(MAX_COMMAND_TIMEOUT_MS),
  MAX_TOOL_OUTPUT_BYTES: `${grouped(MAX_TOOL_OUTPUT_BYTES)} bytes`,
  MAX_WRITE_CONTENT_CHARS: `${grouped(MAX_WRITE_CONTENT_CHARS)} characters`,
  MAX_PATH_CHARS: `${grouped(MAX_PATH_CHARS)} characters`,
  REVIEWER_TIMEOUT_MS: seconds(REVIEWER_TIMEOUT_MS),
  WEBHOOK_TIMESTAMP_WINDOW_MS: seconds(WEBHOOK_TIMESTAMP_WINDOW_MS),
  AGENT_IDLE_MS: seconds(AGENT_IDLE_MS),
}

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight']

describe('the facts the docs take from the code', () => {
  it('give every limit and timeout in docs/reference.md the value its constant has', () => {
    const documented = Object.fromEntries(
      tableRows('Limits and timeouts').map((cells) => [
        /`([A-Z_]+)`/.exec(cells[2] ?? '')?.[1] ?? cells[2],
        cells[1],
      ]),
    )
    expect(documented).toEqual(LIMITS)
  })

  it('name the right number of modes wherever a page counts them', () => {
    const count = PermissionModeSchema.options.length
    expect(REFERENCE).toContain(`one of ${NUMBER_WORDS[count]} modes`)
    for (const mode of PermissionModeSchema.options) expect(REFERENCE).toContain(`\`${mode}\``)
    const counted = allDocs().flatMap((file) =>
      [
        ...read(file).matchAll(
          /\b(zero|one|two|three|four|five|six|seven|eight) (?:permission )?modes\b/gi,
        ),
      ].map((match) => `${file}: ${match[0]}`),
    )
    expect(counted.length).toBeGreaterThan(0)
    for (const found of counted) expect(found).toMatch(new RegExp(`${NUMBER_WORDS[count]} `, 'i'))
  })

  it('count the smoke cases as the scenario lists them', () => {
    const counted = allDocs().flatMap((file) =>
      [...read(file).matchAll(/\b(\d+) (?:smoke )?cases\b/g)].map((match) => ({
        file,
        count: Number(match[1]),
      })),
    )
    expect(counted.length).toBeGreaterThan(0)
    for (const found of counted)
      expect(found).toEqual({ file: found.file, count: SMOKE_CASES.length })
  })

  it('give each way of starting Assent the data folder its entry falls back to', () => {
    const rows = tableRows('Where the data lives')
    expect(rows.length).toBeGreaterThanOrEqual(4)
    for (const cells of rows) {
      const entry = /`([^`]+)`/.exec(cells[1] ?? '')?.[1] ?? ''
      const fallback = /`([^`]+)`/.exec(cells[3] ?? '')?.[1] ?? ''
      expect(read(entry), entry).toContain(`ASSENT_DATA_DIR ?? ${fallback}`)
    }
  })

  it('list exactly the environment variables the code reads', () => {
    const documented = new Set(
      tableRows('Environment variables').flatMap((cells) =>
        [...(cells[0] ?? '').matchAll(/`(ASSENT_[A-Z0-9_]+)`/g)].map((match) => match[1]),
      ),
    )
    const read = new Set<string>()
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`
        if (entry.isDirectory()) {
          if (entry.name !== 'test-support') walk(path)
        } else if (/\.(ts|tsx|cjs|sh)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
          const text = readFileSync(join(ROOT, path), 'utf8')
          // Read from the environment (`env.X`, `env['X']`), named as a string
          // constant, or set in a shell line (`X=1`): never a constant's name.
          const uses = /(?:env\.|env\[['"]|['"`])(ASSENT_[A-Z0-9_]+)|\b(ASSENT_[A-Z0-9_]+)=(?!=)/g
          for (const match of text.matchAll(uses)) read.add(match[1] ?? match[2] ?? '')
        }
      }
    }
    walk('src')
    walk('scripts')
    expect(read.has('ASSENT_DATA_DIR')).toBe(true)
    expect([...documented].sort()).toEqual([...read].sort())
  })

  it('name, for every defended row of the threat model, test files that exist', () => {
    const doc = read('docs/threat-model.md')
    const rows = doc
      .split('\n')
      .filter((line) => /^\|[^|]+\|[^|]+\|\s*(yes|no)\s*\|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()))
    const defended = rows.filter((cells) => cells[3] === 'yes')
    expect(defended.length).toBeGreaterThan(10)
    expect(rows.some((cells) => cells[3] === 'no')).toBe(true)
    for (const cells of defended) {
      const named = [...(cells[4] ?? '').matchAll(/`([^`]+\.test\.tsx?)`/g)].map(
        (match) => match[1] ?? '',
      )
      expect(named.length, cells[1]).toBeGreaterThan(0)
      for (const file of named) expect(existsSync(join(ROOT, file)), file).toBe(true)
    }
  })

  it("take the README's pictures from smoke cases that exist and declare them", () => {
    for (const { caseId, screenshot } of DOCS_IMAGES) {
      const made = SMOKE_CASES.find((definition) => definition.id === caseId)
      expect(made?.screenshots, caseId).toContain(screenshot)
    }
  })

  it("list in qa.md's Reading a run every screenshot each smoke case declares, with its case", () => {
    const qa = read('docs/qa.md')
    const listed = [...qa.matchAll(/^\| `([a-z0-9-]+\.png)` +\| `([a-z0-9-]+)` +\|$/gm)].map(
      (match) => `${match[1]} ${match[2]}`,
    )
    const declared = SMOKE_CASES.flatMap((definition) =>
      (definition.screenshots ?? []).map((file) => `${file} ${definition.id}`),
    )
    expect(listed.sort()).toEqual(declared.sort())
  })
})
