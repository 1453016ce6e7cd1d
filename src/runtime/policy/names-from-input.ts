import { readOptions, type OptionSpec } from './option-words.ts'
import { KEYWORDS, programsRun, simpleCommands, type ProgramRun } from './programs-run.ts'

// A program a command runs on names no word of the line holds: `xargs`
// and `parallel` give it the words of their input, `find -exec … {}`,
// `fd -x` and ripgrep's `--pre` each file their walk finds, `tar -T` and
// `cpio` read a list of names from a file or their input. Outside
// Assent's sandbox (an external agent's command, an MCP server's shell
// tool) `git rev-parse --git-dir | xargs -I{} cp x {}/hooks/post-merge`
// writes a hook, and `find . -type f -exec sed -i s/a/b/ {} +` rewrites
// git's config and the person's `.envrc`, while every word read as a path
// names nothing only a person may change: a grant, the reviewer or the
// webhook answered for it. Which names such a program is given is known
// only when it runs, as a variable's value is (`cp x $D/hooks/x` needs the
// person there: leading-expansion.ts), so it needs the person too; and so
// does a variable the line reads from its input (`read d; cp x "$d"`).

/** GNU xargs's options (its getopt string starts with `+`: they end at
 *  the command). */
const XARGS: OptionSpec = {
  flags: '0oprtx',
  withValue: 'adEILnPs',
  optionalValue: 'eil',
  long: {
    'arg-file': 'required',
    delimiter: 'required',
    eof: 'optional',
    exit: 'none',
    help: 'none',
    interactive: 'none',
    'max-args': 'required',
    'max-chars': 'required',
    'max-lines': 'optional',
    'max-procs': 'required',
    null: 'none',
    'no-run-if-empty': 'none',
    'open-tty': 'none',
    'process-slot-var': 'required',
    replace: 'optional',
    'show-limits': 'none',
    verbose: 'none',
    version: 'none',
  },
  stopsAtOperand: true,
}

/** find's actions that run a command, ended by `;` or `+`. */
const FIND_RUNS = /^-(?:exec|ok)(?:dir)?$/

/** fd's short options that take a value: a letter after one of them in
 *  the same word is that value (`-tx` is the type `x`, not `-x`). */
const FD_VALUE_LETTERS = 'cCdeEjoSt'

/** Whether a run of each program takes names it is not given as words. */
const TAKES_NAMES: Readonly<Record<string, (rest: readonly string[]) => boolean>> = {
  // Without a command xargs runs `echo`, which acts on nothing; an option
  // not known here may take the next word, which may be the command.
  xargs: (rest) => {
    const read = readOptions(rest, 0, XARGS)
    return read.unknown !== null || read.stopped !== null || read.firstOperand < rest.length
  },
  // The command, or the lines it runs, from its input or after `:::`.
  parallel: () => true,
  find: (rest) => findRunsOnFound(rest) || rest.includes('-files0-from'),
  fd: (rest) => fdRunsOnFound(rest),
  fdfind: (rest) => fdRunsOnFound(rest),
  rg: (rest) => rest.some((word) => /^--pre(?:=|$)/.test(word)),
  // Programs whose list of names is a file or their input: cpio copies
  // in or out the names its input lists (or an archive holds), tar's
  // `-T`, rsync's `--files-from`, zip's `-@`, `--files0-from` of du and
  // wc, and find's starting points from a file.
  cpio: () => true,
  tar: (rest) =>
    rest.some((word) => /^--files-from(?:=|$)/.test(word) || /^-[A-Za-z]*T/.test(word)),
  rsync: (rest) => rest.some((word) => /^--files-from(?:=|$)/.test(word)),
  zip: (rest) => rest.some((word) => word === '--names-stdin' || /^-[A-Za-z]*@/.test(word)),
  du: (rest) => rest.some((word) => /^--files0-from(?:=|$)/.test(word)),
  wc: (rest) => rest.some((word) => /^--files0-from(?:=|$)/.test(word)),
}

/**
 * The first program the command lines (as read, hand-offs included) run
 * on names from their input or from a walk (`TAKES_NAMES`), as the words
 * to show, or null. Where the shell runs it (after assignments, keywords
 * and wrappers: `timeout 5 xargs …`) and as any later word of its own
 * (`ssh-agent xargs …`), as programs-run.ts reads it: over-reading only
 * ever asks more. Reads the words alone, no file.
 */
export function namesFromInput(readings: readonly { words: readonly string[] }[]): string | null {
  const [found] = programsRun(readings, (name) => TAKES_NAMES[name])
  return found === undefined ? (variableFromInput(readings) ?? null) : shown(found)
}

/** The shell's commands that set a variable from their input, with their
 *  options whose value is the next word (`read -p prompt`; `read -a`
 *  names an array) and the variable they set when none is named. */
const READERS: Readonly<Record<string, { letters: string; otherwise: string }>> = {
  read: { letters: 'dinNptu', otherwise: 'REPLY' },
  mapfile: { letters: 'CcdnOsu', otherwise: 'MAPFILE' },
  readarray: { letters: 'CcdnOsu', otherwise: 'MAPFILE' },
}

/** Words before a command that leave it the shell's own. */
const BEFORE_BUILTIN = new Set(['builtin', 'command'])

/**
 * A variable the line reads from its input (`read`, `mapfile`) and then
 * uses in a word, as `read d` and the use to show, or undefined: `git
 * rev-parse --git-path config | { read d; sed -i … "$d"; }` gives a
 * program a name no word holds, as `xargs` does. A variable used as a
 * whole segment of a path (`$d/hooks/x`) is already unknown
 * (leading-expansion.ts); one that is the whole word (`"$d"`) is a
 * word there, and only its being read from input tells it apart from
 * `"$VERSION"`.
 */
function variableFromInput(readings: readonly { words: readonly string[] }[]): string | undefined {
  const commands = readings.flatMap(({ words }) => simpleCommands(words))
  const names = commands.flatMap(readInto)
  if (names.length === 0) return undefined
  const used = new RegExp(String.raw`\$\{?(?:${names.join('|')})(?!\w)`)
  const word = commands.flat().find((each) => used.test(each))
  return word === undefined ? undefined : `read ${names.join(' ')} … ${word}`
}

/** The variables a simple command reads from its input: the names it
 *  gives `read` or `mapfile` (plain names: one the shell makes is
 *  git-variables-set.ts's), or the one they set when given none. */
function readInto(command: readonly string[]): string[] {
  let i = 0
  while (i < command.length) {
    const word = command[i] ?? ''
    if (/^[A-Za-z_]\w*=/.test(word) || KEYWORDS.has(word) || BEFORE_BUILTIN.has(word)) i += 1
    else break
  }
  const reader = READERS[command[i] ?? '']
  if (reader === undefined) return []
  const names: string[] = []
  for (let j = i + 1; j < command.length; j += 1) {
    const word = command[j] ?? ''
    if (word.startsWith('-')) {
      const taking = [...word.slice(1)].findIndex((letter) => reader.letters.includes(letter))
      if (taking === word.length - 2) j += 1
      continue
    }
    if (/^[A-Za-z_]\w*$/.test(word)) names.push(word)
  }
  return names.length === 0 ? [reader.otherwise] : names
}

function shown(found: ProgramRun): string {
  return [found.name, ...found.rest.slice(0, 6)].join(' ')
}

/** Whether `find`'s words run a command given what it found (`{}`, which
 *  find replaces wherever it is in a word of `-exec … ;`). */
function findRunsOnFound(rest: readonly string[]): boolean {
  let running = false
  for (const word of rest) {
    if (!running) running = FIND_RUNS.test(word)
    else if (word === ';' || word === '+') running = false
    else if (word.includes('{}')) return true
  }
  return false
}

/** Whether `fd`'s words run a command on each file it finds (`-x`,
 *  `--exec`), or on all of them at once (`-X`, `--exec-batch`). */
function fdRunsOnFound(rest: readonly string[]): boolean {
  for (const word of rest) {
    if (word === '--') return false
    if (/^--exec(?:-batch)?(?:=|$)/.test(word)) return true
    if (!/^-[^-]/.test(word)) continue
    for (const letter of word.slice(1)) {
      if (letter === 'x' || letter === 'X') return true
      if (FD_VALUE_LETTERS.includes(letter)) break
    }
  }
  return false
}

/** Why a command `namesFromInput` finds needs the person where it is not
 *  contained, in English. */
export const NAMES_FROM_INPUT_WHY =
  'it runs a program on names taken from its input or from the files it finds, not from its words, which may be places only a person may change, so it cannot be checked'
