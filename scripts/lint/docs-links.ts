/**
 * Checks that every relative link in the project's Markdown (README.md and
 * docs/*.md) names a file that exists and, where it carries a `#anchor`, a
 * heading that exists in that file. Anchors are GitHub's heading slugs, so a
 * link that works here works on GitHub, and a moved section cannot leave a
 * link pointing at nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

export interface MarkdownLink {
  /** The target as written: `docs/qa.md`, `qa.md#tests`, `#routes`. */
  target: string
  /** 1-based line of the link in its file. */
  line: number
}

export interface BrokenLink extends MarkdownLink {
  /** The file the link is in, relative to the root. */
  file: string
  reason: string
}

const FENCE = /^\s*(```|~~~)/
const INLINE_LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g
const REFERENCE_DEFINITION = /^\s*\[[^\]]+\]:\s*(\S+)/
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/

/** The lines of a Markdown file outside fenced code blocks, with their
 *  1-based numbers: nothing inside a fence is a link or a heading. */
function proseLines(markdown: string): Array<[number, string]> {
  const lines: Array<[number, string]> = []
  let fenced = false
  markdown.split('\n').forEach((text, index) => {
    if (FENCE.test(text)) {
      fenced = !fenced
      return
    }
    if (!fenced) lines.push([index + 1, text])
  })
  return lines
}

/** GitHub's slug for a heading: the text as shown (link targets, code
 *  marks and emphasis dropped), lower-cased, punctuation and symbols removed,
 *  each space a dash. */
export function headingSlug(heading: string): string {
  const shown = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
  return shown
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** Every anchor a file's headings define; a repeated heading gets `-1`,
 *  `-2`, … as on GitHub. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const [, text] of proseLines(markdown)) {
    const match = HEADING.exec(text)
    if (!match) continue
    const slug = headingSlug(match[2] ?? '')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** Inline links and reference definitions outside code (fences and inline
 *  code spans), in order. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = []
  for (const [line, text] of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, '')
    const definition = REFERENCE_DEFINITION.exec(prose)
    if (definition) links.push({ target: definition[1] ?? '', line })
    for (const match of prose.matchAll(INLINE_LINK)) links.push({ target: match[1] ?? '', line })
  }
  return links
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target)
}

/**
 * The links in `files` (paths relative to `root`) that do not resolve: a
 * relative path that leaves the root or names nothing, or an anchor no
 * heading of the target Markdown file defines. External URLs are not
 * fetched.
 */
export function brokenLinks(root: string, files: readonly string[]): BrokenLink[] {
  const broken: BrokenLink[] = []
  const anchorsOf = new Map<string, Set<string>>()
  const anchorsIn = (path: string) => {
    let anchors = anchorsOf.get(path)
    if (!anchors) {
      anchors = headingAnchors(readFileSync(path, 'utf8'))
      anchorsOf.set(path, anchors)
    }
    return anchors
  }
  for (const file of files) {
    const source = resolve(root, file)
    for (const link of markdownLinks(readFileSync(source, 'utf8'))) {
      if (isExternal(link.target)) continue
      const refuse = (reason: string) => broken.push({ ...link, file, reason })
      const [pathPart = '', anchor] = link.target.split('#', 2)
      const target = pathPart === '' ? source : resolve(dirname(source), decodeURI(pathPart))
      const inside = relative(root, target)
      if (inside.startsWith(`..${sep}`) || inside === '..') {
        refuse('points outside the repository')
        continue
      }
      if (!existsSync(target)) {
        refuse(`no such file: ${inside}`)
        continue
      }
      if (anchor === undefined) continue
      if (!target.endsWith('.md')) {
        refuse(`an anchor into a file that is not Markdown: ${inside}`)
      } else if (!anchorsIn(target).has(anchor)) {
        refuse(`no heading with the anchor #${anchor} in ${inside}`)
      }
    }
  }
  return broken
}

/** README.md and every Markdown file in docs/ and its language folders
 *  (docs/zh-CN/), relative to `root`. */
export function projectDocs(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name.split(sep).join('/')}`)
    .sort()
  return ['README.md', ...docs]
}
