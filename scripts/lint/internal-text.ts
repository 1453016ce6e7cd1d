/**
 * Finds text that belongs to how the project was worked on, not to the
 * project: an issue number ("issue 14", "issue 14 §3"), a lab-notebook
 * phrase ("this round", "the development machine"), or an absolute path of
 * the machine a file was written on (a checkout folder, a throwaway folder
 * a test made). A reader cannot open any of them, and they go stale the day
 * they are written. Checked over the Markdown, the code and the committed
 * JSON, so none comes back through another door.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'

export interface InternalText {
  /** 1-based line. */
  line: number
  /** What was found, as written. */
  text: string
  reason: string
}

const ISSUE_NUMBER = /\bissues? #?\d+(\s*§\s*\d+)?/gi
const NOTEBOOK = /\b(this round|the ([\w-]+ ){0,3}development machine|no machine here)\b/gi
/** A folder `mkdtemp` made (six random characters after the last dash):
 *  only a run on one machine ever had it. */
const THROWAWAY_FOLDER = /\/tmp\/[\w.-]+-[A-Za-z0-9]{6}(?![\w-])/g

function escaped(path: string): string {
  return path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Absolute paths that name a machine: the checkout's own folder, the home
 *  folder of whoever runs the check, and the usual roots of a work or CI
 *  machine. Examples such as `/home/ada/project` name nobody's machine and
 *  pass. */
function machinePaths(root: string): RegExp {
  const own = [root, homedir()].filter((path) => path.length > 1 && path !== tmpdir())
  const roots = ['/work/', '/root/', '/home/runner/', ...own.map((path) => `${path}/`)]
  return new RegExp(`(${roots.map(escaped).join('|')})[^\\s"'\`)]*`, 'g')
}

/** What in `text` is internal, line by line. */
export function internalText(text: string, root: string): InternalText[] {
  const found: InternalText[] = []
  const machine = machinePaths(root)
  text.split('\n').forEach((content, index) => {
    const line = index + 1
    for (const [pattern, reason] of [
      [ISSUE_NUMBER, 'an issue number: say what the rule is, not where it was asked for'],
      [NOTEBOOK, 'a lab-notebook phrase: say what holds, on what machine, when'],
      [THROWAWAY_FOLDER, "a throwaway folder of one machine's run"],
      [machine, "an absolute path of one machine's checkout or home"],
    ] as const) {
      for (const match of content.matchAll(pattern)) found.push({ line, text: match[0], reason })
    }
  })
  return found
}

const SKIPPED = new Set([
  'node_modules',
  'out',
  'reports',
  'evidence',
  'dist',
  'coverage',
  '.git',
  '.tools',
])
/** The lockfiles are the registry's text; this check, its test and the
 *  test of the step that relativizes Stryker's file must spell out what
 *  they look for. */
const UNCHECKED_FILES = new Set([
  'package-lock.json',
  'agents/package-lock.json',
  'scripts/lint/internal-text.ts',
  'scripts/lint/internal-text.test.ts',
  'scripts/mutation-incremental.test.ts',
])
const CHECKED = /\.(md|ts|tsx|js|cjs|mjs|css|html|json|ya?ml|sh)$/

/** The project's own text files (relative to `root`): README, SECURITY and
 *  the other root files, docs/, src/, scripts/, tests/, agents/ and the
 *  committed mutation cache; never what a build, a run or a package made. */
export function projectTextFiles(root: string): string[] {
  const files: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`
      if (entry.isDirectory()) {
        if (dir !== '' || ['docs', 'src', 'scripts', 'tests', 'agents', 'mutation'].includes(path))
          walk(path)
      } else if (CHECKED.test(entry.name) && !UNCHECKED_FILES.has(path)) {
        files.push(path)
      }
    }
  }
  walk('')
  return files.sort()
}

/** Every finding in the project's text files, each with its file. */
export function projectInternalText(root: string): Array<InternalText & { file: string }> {
  return projectTextFiles(root).flatMap((file) =>
    internalText(readFileSync(join(root, file), 'utf8'), root).map((found) => ({ file, ...found })),
  )
}
