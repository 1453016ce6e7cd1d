import { gitCommandOf, isGitProgram } from './git-hand-offs.ts'
import { longOf, mayNegateLong, readOptions, shortOf, type OptionSpec } from './option-words.ts'
import type { PersonOnly } from './person-only.ts'
import { programsRun } from './programs-run.ts'

/**
 * Programs that write files their words do not name: the names come from
 * an archive they unpack (`tar -xf vendor.tgz`, `unzip x.zip`), a patch
 * they apply (`patch -p1 < fix.diff`, `git apply`, `hg import`) or a
 * commit git writes out (`git merge`, `git checkout <branch>`). What
 * such an archive or patch holds is the agent's to choose, and may be
 * `.git/config`, `.git/hooks/pre-commit` or a nested repository's; a
 * grant for the very command line, given on an innocent archive, answers
 * for the next one too. Per program, whether the words run it so (`tar
 * -t` lists).
 */
const WRITES_NAMES_INSIDE: Readonly<Record<string, (rest: readonly string[]) => boolean>> = {
  tar: tarExtracts,
  gtar: tarExtracts,
  bsdtar: tarExtracts,
  // Every use but listing or testing an archive.
  unzip: (rest) => !rest.some((word) => /^-[A-Za-z]*[lZtv]/.test(word)),
  '7z': sevenZipExtracts,
  '7za': sevenZipExtracts,
  '7zz': sevenZipExtracts,
  '7zr': sevenZipExtracts,
  unrar: (rest) => rest.some((word) => word === 'x' || word === 'e'),
  cpio: cpioExtracts,
  bsdcpio: cpioExtracts,
  pax: (rest) => rest.some((word) => /^-[A-Za-z]*r/.test(word)),
  ar: (rest) => /^-?[A-Za-z]*x/.test(rest[0] ?? ''),
  jar: (rest) => /^-?[A-Za-z]*x/.test(rest[0] ?? ''),
  'dpkg-deb': (rest) =>
    rest.some((word) => /^(?:-x|-X|-R|--extract|--vextract|--raw-extract)$/.test(word)),
  patch: () => true,
  // They only unpack: every use.
  unar: () => true,
  aunpack: () => true,
  atool: (rest) => rest.some((word) => /^-[A-Za-z]*[xX]/.test(word) || longOf(word, 'extract')),
  unsquashfs: (rest) => !rest.some((word) => UNSQUASHFS_READS_ONLY.has(word)),
  cabextract: (rest) =>
    extractsUnless(rest, CABEXTRACT_OPTIONS, ['l', 'list', 't', 'test', 'p', 'pipe']),
  hg: hgApplies,
  quilt: (rest) => !QUILT_READS_ONLY.has(rest.find((word) => !word.startsWith('-')) ?? ''),
  python: pythonExtracts,
  gh: ghChecksOut,
  glab: (rest) => requestCheckedOut(rest, 'mr'),
}

/**
 * Per git command, whether its words (after the command) write files
 * they do not name: a patch's or a mailbox's, or a commit's. `git apply`
 * only reads with `--check`, `--stat`, `--numstat` or `--summary`, unless
 * `--apply` (or what may abbreviate it) is given too.
 *
 * A commit's files are the agent's to choose as much as an archive's:
 * `git fetch <url>` brings one from anywhere, and `git commit` records one
 * without touching the work tree. So every command that writes a
 * revision's (or the index's) files into the work tree counts: merging,
 * pulling, picking, reverting, rebasing, a stash put back or put away, a
 * hard reset, a checkout or switch to another revision or forced over the
 * work tree, a restore, a submodule brought to its recorded commit, a
 * bisect step, and hub's `sync`. Outside Assent's sandbox such a command
 * rewrites an existing `.husky/pre-commit` or `.envrc` in place, which the
 * made-files watch does not count there (made-person-only.ts: only a path
 * that was not there does).
 *
 * git reads an option as parse-options does: any start of a long one
 * (`--har` is `--hard`) and short ones bundled (`-um` is `-u -m`). An
 * option that makes a command write is found by every such spelling
 * (`longOf`, `shortOf` with no value letters), which only asks more; one
 * that makes it write nothing is trusted only whole, with its letter
 * before any that takes a value, and with no word that may take it back
 * (`--staged --no-staged`).
 */
const GIT_WRITES_NAMES_INSIDE: Readonly<Record<string, (rest: readonly string[]) => boolean>> = {
  apply: (rest) =>
    !onlyWith(rest, ['check', 'stat', 'numstat', 'summary']) ||
    rest.some((word) => longOf(word, 'apply')),
  am: () => true,
  merge: () => true,
  pull: () => true,
  'cherry-pick': () => true,
  revert: () => true,
  rebase: () => true,
  'filter-branch': () => true,
  'checkout-index': () => true,
  // hub's: fast-forwards the branch checked out, work tree and all.
  sync: () => true,
  stash: (rest) => !STASH_WRITES_NOTHING.has(firstOperand(rest) ?? 'push'),
  reset: (rest) => rest.some((word) => ['hard', 'merge', 'keep'].some((o) => longOf(word, o))),
  checkout: (rest) =>
    forced(rest, ['force']) || namesRevisionOrPaths(rest, ['-b', '-B', '--orphan']),
  switch: (rest) =>
    forced(rest, ['force', 'discard-changes']) ||
    namesRevisionOrPaths(rest, ['-c', '-C', '--create', '--force-create', '--orphan']),
  // Only the index, unless the work tree is asked for too.
  restore: (rest) =>
    !onlyWith(rest, ['staged'], { letter: 'S', valueLetters: 's' }) ||
    rest.some((word) => longOf(word, 'worktree') || shortOf(word, 'W')),
  'read-tree': (rest) => rest.some((word) => shortOf(word, 'u') || longOf(word, 'reset')),
  submodule: (rest) => firstOperand(rest) === 'update',
  bisect: (rest) => !BISECT_WRITES_NOTHING.has(rest[0] ?? 'help'),
  'sparse-checkout': (rest) => (rest[0] ?? 'list') !== 'list',
}

/**
 * Whether one of the options `safe` (long names, or a short letter) that
 * make a git command write nothing is given, whole, and no word may take
 * one back. A start of one (`--sta`) is not trusted: it may be another
 * option to git, so the command is judged as if it were not given.
 */
function onlyWith(
  rest: readonly string[],
  safe: readonly string[],
  short?: { letter: string; valueLetters: string },
): boolean {
  const given = rest.some(
    (word) =>
      safe.some((long) => word === `--${long}`) ||
      (short !== undefined && shortOf(word, short.letter, short.valueLetters)),
  )
  return given && !rest.some((word) => safe.some((long) => mayNegateLong(word, long)))
}

/** Whether `git checkout` or `git switch` is forced (`-f`, `--force`, or
 *  what may abbreviate one of `long`): with no revision it writes the
 *  index's files over the work tree's, with `-b` HEAD's. */
function forced(rest: readonly string[], long: readonly string[]): boolean {
  return rest.some((word) => shortOf(word, 'f') || long.some((name) => longOf(word, name)))
}

/** `git stash`'s commands that leave the work tree as it is. */
const STASH_WRITES_NOTHING = new Set(['list', 'show', 'drop', 'clear', 'create', 'store'])

/** `git bisect`'s commands that check out no revision. */
const BISECT_WRITES_NOTHING = new Set(['log', 'view', 'visualize', 'terms', 'help'])

/** The first word that is no option. */
function firstOperand(rest: readonly string[]): string | undefined {
  return rest.find((word) => !word.startsWith('-'))
}

/**
 * Whether `git checkout` or `git switch` is given a revision or paths to
 * write (any word that is no option, `-` for the last branch, `--`, or
 * paths read from a file), rather than only a new branch made where HEAD
 * is (`checkout -b topic`) or nothing at all. `newBranch` are the options
 * whose value is the new branch's name.
 */
function namesRevisionOrPaths(rest: readonly string[], newBranch: readonly string[]): boolean {
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i] ?? ''
    if (newBranch.includes(word)) i += 1
    else if (word === '-' || word === '--' || !word.startsWith('-')) return true
    else if (word.startsWith('--pathspec-from-file')) return true
  }
  return false
}

/** How a program named `name` is judged (`WRITES_NAMES_INSIDE`): git's
 *  dashed programs (`git-apply`) are git's commands, every Python
 *  (`python3.12`) is `python`. */
function writesNamesInside(name: string): ((rest: readonly string[]) => boolean) | undefined {
  if (isGitProgram(name)) {
    return (rest) => {
      const git = gitCommandOf(name, rest, 0)
      if (git === null || !Object.hasOwn(GIT_WRITES_NAMES_INSIDE, git.command)) return false
      return GIT_WRITES_NAMES_INSIDE[git.command]?.(rest.slice(git.from)) === true
    }
  }
  const program = /^python[\d.]*$/.test(name) ? 'python' : name
  return Object.hasOwn(WRITES_NAMES_INSIDE, program) ? WRITES_NAMES_INSIDE[program] : undefined
}

/**
 * The person-only reason of a command that runs a program writing files
 * its words do not name (`WRITES_NAMES_INSIDE`), or null. Not for
 * Assent's own `run_command`: its sandbox keeps every git folder and file
 * that runs code read-only whatever the command writes, and moves aside
 * what it makes of them (made-person-only.ts). An external agent's command
 * runs in the agent's own sandbox, or none, and an MCP server's tool in
 * the server's: no door but the person may answer for what such a command
 * unpacks.
 */
export function writesUnnamed(
  touch: { toolName: string; mcpServerId?: string | undefined },
  readings: readonly { words: readonly string[] }[],
): PersonOnly | null {
  if (touch.toolName === 'run_command' && touch.mcpServerId === undefined) return null
  const [found] = programsRun(readings, writesNamesInside)
  if (found === undefined) return null
  return {
    path: [found.name, ...found.rest].slice(0, 6).join(' '),
    class: 'unread-command',
    reason:
      "it writes files its words do not name (an archive, a patch or a commit holds their names), which nothing outside Assent's sandbox keeps out of git's folder or off the files that run code",
  }
}

/** tar's options as far as extracting goes: every short letter is read
 *  on its own (a value glued to its letter, `-fx.tar`, may read as `x`,
 *  which only asks more), and `--extract` and `--get` by any abbreviation
 *  tar takes (`--ext`, `--ge`). */
const TAR_OPTIONS: OptionSpec = {
  flags: '',
  withValue: '',
  long: { extract: 'none', get: 'none' },
  stopsAtOperand: false,
}

/** `tar` extracting: `-x`, `--extract`, `--get` (or an abbreviation), or
 *  a first word of bundled letters holding `x` (`tar xzf a.tgz`, `tar
 *  -xvf a.tar`). Words past the most that are read may say anything. */
function tarExtracts(rest: readonly string[]): boolean {
  const [first = ''] = rest
  if (/^-?[A-Za-z]*x[A-Za-z]*$/.test(first)) return true
  const read = readOptions(rest, 0, TAR_OPTIONS)
  return (
    read.stopped !== null ||
    read.options.some(({ name }) => name === 'x' || name === 'extract' || name === 'get')
  )
}

/** `cpio` (or `bsdcpio`) extracting: `-i`, or `--extract`. */
function cpioExtracts(rest: readonly string[]): boolean {
  return rest.some((word) => longOf(word, 'extract') || /^-[A-Za-z]*i/.test(word))
}

/** A program that extracts but with one of its options in `readsOnly`
 *  (listing, testing, writing to its output): an option it does not
 *  know, or more than are read, may be anything, and counts as
 *  extracting. */
function extractsUnless(
  rest: readonly string[],
  spec: OptionSpec,
  readsOnly: readonly string[],
): boolean {
  const read = readOptions(rest, 0, spec)
  if (read.unknown !== null || read.stopped !== null) return true
  return !read.options.some(({ name }) => readsOnly.includes(name))
}

/** cabextract's options: `--list`, `--test` and `--pipe` only read. */
const CABEXTRACT_OPTIONS: OptionSpec = {
  flags: 'vhltqfLpks',
  withValue: 'dFe',
  long: {
    ...{ version: 'none', help: 'none', list: 'none', test: 'none', quiet: 'none', fix: 'none' },
    ...{ lowercase: 'none', pipe: 'none', 'keep-symlinks': 'none', single: 'none' },
    ...{ directory: 'required', filter: 'required', encoding: 'required' },
  },
  stopsAtOperand: false,
}

/** unsquashfs's options that list or show what an image holds, and write
 *  nothing. */
const UNSQUASHFS_READS_ONLY = new Set([
  ...['-l', '-ls', '-ll', '-lls', '-lc', '-llc', '-lln', '-llnumeric', '-s', '-stat', '-cat'],
])

/** quilt's commands that only show the series or a patch. */
const QUILT_READS_ONLY = new Set([
  ...['series', 'applied', 'unapplied', 'top', 'next', 'previous', 'files', 'patches', 'diff'],
])

/** Mercurial's options before its command that take a value (`-R` may
 *  end a word of bundled letters, `-qR repo`). */
const HG_OPTIONS_WITH_VALUE = ['repository', 'cwd', 'encoding', 'encodingmode', 'color', 'pager']

/** Mercurial's commands that apply patches: `import` (and its alias
 *  `patch`), and mq's that push, go to, fold or import patches. */
const HG_APPLYING = ['import', 'patch', 'qpush', 'qgoto', 'qfold', 'qimport']

/** Whether `hg` applies a patch: its command is one of `HG_APPLYING`, or
 *  a start of one, as hg takes any unambiguous one (`hg imp`). A
 *  `--config` may name an alias or a hook that runs any of them, so it
 *  counts too. */
function hgApplies(rest: readonly string[]): boolean {
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i] ?? ''
    if (longOf(word, 'config')) return true
    if (/^-[A-Za-z]*R$/.test(word)) i += 1
    else if (!word.includes('=') && HG_OPTIONS_WITH_VALUE.some((long) => longOf(word, long))) {
      i += 1
    } else if (!word.startsWith('-')) {
      return word.length >= 2 && HG_APPLYING.some((command) => command.startsWith(word))
    }
  }
  return false
}

/** `python3 -m tarfile -e a.tar`, `python -m zipfile --extract a.zip
 *  out`: Python's own archive modules, run as programs, extracting. The
 *  module may be glued to `-m` or to flags before it (`-Im tarfile`,
 *  `-mtarfile`). */
function pythonExtracts(rest: readonly string[]): boolean {
  const at = rest.findIndex((word) => /^-[A-Za-z]*m/.test(word))
  if (at === -1) return false
  const flags = rest[at] ?? ''
  const glued = flags.slice(flags.indexOf('m') + 1)
  const module = glued === '' ? rest[at + 1] : glued
  if (module !== 'tarfile' && module !== 'zipfile') return false
  const args = rest.slice(glued === '' ? at + 2 : at + 1)
  return args.some((word) => /^-[A-Za-z]*e/.test(word) || longOf(word, 'extract'))
}

/** Whether a forge's tool fetches a pull (merge) request's branch and
 *  checks it out: `gh pr checkout 12`, `glab mr checkout 12` (or `co`).
 *  Their options may come between their words (`gh pr -R o/r checkout
 *  12`), so any later word that names the command counts. */
function requestCheckedOut(rest: readonly string[], group: string): boolean {
  const [first, ...after] = rest.filter((word) => !word.startsWith('-'))
  return first === group && after.some((word) => word === 'checkout' || word === 'co')
}

/** GitHub's `gh` writing a fetched revision's files into the work tree:
 *  a pull request checked out (its own alias `gh co` too), a fork synced
 *  (`repo sync` fast-forwards the branch checked out), or a pull request
 *  merged with its branch deleted (`pr merge -d` checks out and pulls the
 *  base branch). */
function ghChecksOut(rest: readonly string[]): boolean {
  const [first, ...after] = rest.filter((word) => !word.startsWith('-'))
  if (first === 'co' || requestCheckedOut(rest, 'pr')) return true
  if (first === 'repo') return after.includes('sync')
  return (
    first === 'pr' &&
    after.includes('merge') &&
    rest.some((word) => shortOf(word, 'd') || longOf(word, 'delete-branch'))
  )
}

/** 7-Zip's `x` or `e` command, its first word that is no option. */
function sevenZipExtracts(rest: readonly string[]): boolean {
  const command = rest.find((word) => !word.startsWith('-'))
  return command === 'x' || command === 'e'
}
