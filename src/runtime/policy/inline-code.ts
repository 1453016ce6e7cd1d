// Programs given code in another language among a command's words, for
// the person-only rule (programs-not-read.ts): `python3 -c '…'`, `perl
// -e '…'`, an awk program that runs a command (`system(…)`, a pipe), sed's
// `e`, and the tools that run a command line of their own (`tar
// --checkpoint-action=exec=…`, `vim -c '!…'`, `tmux new '…'`, `socat
// EXEC:…`, `at`, `crontab`). The rule reads shell, not Python or Perl:
// `python3 -c 'import os; os.system("git config core.hooksPath …")'`
// names nothing it reads, and a grant, the reviewer or the webhook
// answered for it. Like PowerShell's text, such code is a program the
// rule does not read, so the person decides. A script file given as an
// operand (`python3 build.py`) is a script the command runs and is not
// counted, as for a shell (docs/security-model.md).

/** A program's own words: `words[from]` onwards. */
interface ProgramWords {
  words: readonly string[]
  from: number
}

/** Whether one of the words before the first operand is a short option
 *  holding one of `letters` (`-c`, `-Bc`, `-pe`), or one of `long`
 *  (`--eval`, `--eval=…`). Over-reading only ever asks more. */
function givenOption(
  { words, from }: ProgramWords,
  letters: string,
  long: readonly string[] = [],
): boolean {
  for (let i = from; i < words.length; i += 1) {
    const word = words[i] ?? ''
    if (word === '--' || !word.startsWith('-') || word === '-') return false
    if (word.startsWith('--')) {
      if (long.some((name) => word === `--${name}` || word.startsWith(`--${name}=`))) return true
      continue
    }
    if ([...word.slice(1)].some((letter) => letters.includes(letter))) return true
  }
  return false
}

/** The words from `from` that are not options (an awk or sed program,
 *  its files). */
function operands({ words, from }: ProgramWords): string[] {
  return words.slice(from).filter((word) => !word.startsWith('-'))
}

/** awk runs a command from its program with `system(…)`, a pipe
 *  (`print | "sh"`, `"cmd" | getline`) or writes a file it names
 *  (`print > ".git/config"`); its program is its first operand, unless
 *  given with `-f` (a file, not counted). */
function awkRuns(at: ProgramWords): boolean {
  if (givenOption(at, 'f', ['file'])) return false
  const program = operands(at)[0] ?? ''
  return /system\s*\(|\||>\s*["$(]/.test(program)
}

/** sed's `e` command, an `s` command's `e` flag, or `w`/`W` writing a
 *  file its script names, in any word of the script. */
function sedRuns({ words, from }: ProgramWords): boolean {
  return words
    .slice(from)
    .some(
      (word) =>
        /(?:^|[;{}\n]|[\d$/!])\s*[eWw](?:\s|;|$)/.test(word) ||
        /(?:^|[;{}\n])\s*s(.).*\1.*\1[gpiImM\d]*[ew]/.test(word),
    )
}

/** Per program, whether it is given code it runs that the rule does not
 *  read. */
export const INLINE_CODE_BY_NAME: Readonly<Record<string, (at: ProgramWords) => boolean>> = {
  perl: (at) => givenOption(at, 'eE'),
  ruby: (at) => givenOption(at, 'e'),
  node: (at) => givenOption(at, 'ep', ['eval', 'print']),
  nodejs: (at) => givenOption(at, 'ep', ['eval', 'print']),
  bun: (at) => givenOption(at, 'ep', ['eval', 'print']),
  deno: ({ words, from }) => words[from] === 'eval',
  php: (at) => givenOption(at, 'rRBE', ['process-begin', 'process-code', 'process-end']),
  lua: (at) => givenOption(at, 'e'),
  rscript: (at) => givenOption(at, 'e'),
  osascript: (at) => givenOption(at, 'e'),
  julia: (at) => givenOption(at, 'eE', ['eval', 'print']),
  awk: awkRuns,
  gawk: awkRuns,
  mawk: awkRuns,
  nawk: awkRuns,
  sed: sedRuns,
  gsed: sedRuns,
  tar: ({ words, from }) =>
    words.slice(from).some((word) => /^--checkpoint-action=exec/.test(word)),
  zip: (at) => givenOption(at, '', ['unzip-command']) || at.words.slice(at.from).includes('-TT'),
  // An editor's start-up commands (`vim -c '!…'`, `+'!…'`, `--cmd`).
  vim: editorCommands,
  nvim: editorCommands,
  vi: editorCommands,
  ex: editorCommands,
  view: editorCommands,
  // `--eval`'s text, or a makefile read from the input.
  make: (at) => givenOption(at, 'E', ['eval']) || makefileFromInput(at),
  expect: (at) => givenOption(at, 'c'),
  // A terminal multiplexer runs what it is given in a shell of its own.
  tmux: ({ words, from }) => words.length > from && !/^(?:ls|list-\w+|-V)$/.test(words[from] ?? ''),
  screen: ({ words, from }) => !words.slice(from).some((word) => /^-(?:ls|list|r|x|v)$/.test(word)),
  // A line to run later, read from the input or a file.
  at: ({ words, from }) => !words.slice(from).some((word) => /^-[lrdV]$/.test(word)),
  batch: () => true,
  crontab: ({ words, from }) => !words.slice(from).some((word) => /^-[l]$/.test(word)),
  // An address that runs a command line.
  socat: ({ words, from }) =>
    words.slice(from).some((word) => /(?:^|[!,])(?:EXEC|SYSTEM):/i.test(word)),
  ncat: (at) => givenOption(at, 'ec', ['exec', 'sh-exec', 'lua-exec']),
  nc: (at) => givenOption(at, 'ec'),
  netcat: (at) => givenOption(at, 'ec'),
}

function makefileFromInput({ words, from }: ProgramWords): boolean {
  const input = /^(?:-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/self\/fd\/\d+)$/
  return words.slice(from).some((word, i, rest) => {
    const given = /^(?:--file=|--makefile=)(.*)$/.exec(word)?.[1] ?? /^-f(.+)$/.exec(word)?.[1]
    if (given !== undefined) return input.test(given)
    return word === '-f' && input.test(rest[i + 1] ?? '')
  })
}

function editorCommands(at: ProgramWords): boolean {
  return (
    givenOption(at, 'cS', ['cmd']) ||
    at.words.slice(at.from).some((word) => word.startsWith('+') && word.length > 1)
  )
}

/** Whether `name` (a basename, lower-cased) is a Python given code with
 *  `-c` (`python`, `python3`, `python3.12`, `pypy3`). */
export function pythonGivenCode(name: string, at: ProgramWords): boolean {
  return /^(?:python|pypy)[\d.]*$/.test(name) && givenOption(at, 'c')
}
