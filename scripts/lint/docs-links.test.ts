import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  brokenLinks,
  headingAnchors,
  headingSlug,
  markdownLinks,
  projectDocs,
} from './docs-links.ts'

const ROOT = resolve(import.meta.dirname, '../..')

describe("the project's Markdown links", () => {
  it('resolve, in README.md and every docs file, to an existing file and heading', () => {
    const files = projectDocs(ROOT)
    expect(files).toContain('docs/architecture.md')
    expect(brokenLinks(ROOT, files)).toEqual([])
    // Not vacuous: the README links into docs/ and at least one link carries an anchor.
    const all = files.flatMap((file) => markdownLinks(readFileSync(join(ROOT, file), 'utf8')))
    expect(all.filter((link) => link.target.startsWith('docs/')).length).toBeGreaterThan(5)
    expect(all.filter((link) => link.target.includes('#')).length).toBeGreaterThan(3)
  })

  it("list every docs file in the README's Documentation section", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const start = readme.indexOf('\n## Documentation\n')
    expect(start).toBeGreaterThan(-1)
    const end = readme.indexOf('\n## ', start + 1)
    const listed = new Set(
      markdownLinks(readme.slice(start, end === -1 ? undefined : end)).map((link) => link.target),
    )
    const docs = projectDocs(ROOT).filter((file) => file.startsWith('docs/'))
    expect(docs.filter((file) => !listed.has(file))).toEqual([])
  })
})

describe('brokenLinks', () => {
  const base = mkdtempSync(join(tmpdir(), 'assent-docs-links-'))
  afterAll(() => rmSync(base, { recursive: true, force: true }))
  const root = join(base, 'repo')
  mkdirSync(join(root, 'docs'), { recursive: true })
  writeFileSync(join(base, 'outside.md'), '# Outside\n')
  writeFileSync(join(root, 'docs', 'a.md'), '# A\n\n## Two words\n\n## Two words\n')
  writeFileSync(join(root, 'notes.txt'), 'plain')

  const check = (markdown: string) => {
    writeFileSync(join(root, 'README.md'), markdown)
    return brokenLinks(root, ['README.md']).map((link) => link.reason)
  }

  it('accepts a file, a heading in it, a repeated heading and a heading in the same file', () => {
    expect(
      check(
        '# Top\n\n[a](docs/a.md) [b](docs/a.md#two-words) [c](docs/a.md#two-words-1) [d](#top) [e](notes.txt)\n',
      ),
    ).toEqual([])
  })

  it('names a missing file', () => {
    expect(check('[a](docs/missing.md)\n')).toEqual(['no such file: docs/missing.md'])
  })

  it('names an anchor that no heading defines, in another file or the same one', () => {
    expect(check('# Top\n\n[a](docs/a.md#one-word) [b](#bottom)\n')).toEqual([
      'no heading with the anchor #one-word in docs/a.md',
      'no heading with the anchor #bottom in README.md',
    ])
  })

  it('refuses a link that leaves the repository, even to a file that exists', () => {
    expect(check('[a](../outside.md) [b](docs/../../outside.md#outside)\n')).toEqual([
      'points outside the repository',
      'points outside the repository',
    ])
  })

  it('refuses an anchor into a file that is not Markdown', () => {
    expect(check('[a](notes.txt#x)\n')).toEqual([
      'an anchor into a file that is not Markdown: notes.txt',
    ])
  })

  it('ignores external URLs and anything inside code', () => {
    expect(
      check('[site](https://example.org/x#y) `[not](a-link.md)`\n\n```\n[not](a-link.md)\n```\n'),
    ).toEqual([])
  })
})

describe('headingSlug', () => {
  it.each([
    ['2. Approving a tool call', '2-approving-a-tool-call'],
    ['"Always allow" grants', 'always-allow-grants'],
    ['Tokens (`scripts/bench/token-bench.ts`)', 'tokens-scriptsbenchtoken-benchts'],
    ['The gateway, for any agent that speaks MCP', 'the-gateway-for-any-agent-that-speaks-mcp'],
    ['Approve-for-me', 'approve-for-me'],
    ['snake_case and [a link](x.md)', 'snake_case-and-a-link'],
    ['权限 模式', '权限-模式'],
  ])('slugs %j as GitHub does: %s', (heading, slug) => {
    expect(headingSlug(heading)).toBe(slug)
  })

  it('numbers repeated headings and skips headings inside code fences', () => {
    expect([...headingAnchors('# A\n## A\n```\n# B\n```\n### A\n')]).toEqual(['a', 'a-1', 'a-2'])
  })
})
