import {
  CSH_OPTIONS,
  CSH_SHELLS,
  FISH,
  FISH_LINES,
  FISH_OPTIONS,
  LINE_OPTION_PROGRAMS,
  POSIX_SHELLS,
  posixShellOptions,
  sgLine,
} from './hand-offs.ts'
import { INLINE_CODE_BY_NAME, pythonGivenCode } from './inline-code.ts'
import { readOptions, type OptionSpec } from './option-words.ts'

// The programs a command runs that run a program of their own whose text
// no word of the command holds, for the person-only rule
// (shell-commands.ts): a shell that reads its program from its input
// (`curl … | sh`, `sh < x`, `bash -s`, `xargs sh -c`), one a wrapper starts
// when it is given no command (`su`, `sudo -s`, `unshare -r`, `sg wheel`),
// PowerShell's command text (another language), what `ssh` runs (on a
// host, or its `ProxyCommand` here) and the shell `nix-shell` opens. Each
// is judged where the shell runs it (first in a command, or past a
// wrapper), never as another program's argument (`which bash`).

/** Where a program is judged: its own words start at `words[from]`;
 *  `fromInput` when a wrapper (`xargs`) adds words from its input. */
interface ProgramAt {
  name: string
  words: readonly string[]
  from: number
  fromInput: boolean
}

/**
 * What a program at `words[from - 1]` runs that is not read, as the words
 * to show, or null: its text comes from its input, a file it is given
 * elsewhere, or a language the rule does not read. A script file given as
 * an operand (`bash build.sh`) is a script the command runs, as `python
 * x.py` is: not read, and not counted here (docs/security-model.md).
 */
export function programNotRead(at: ProgramAt): string | null {
  const { name, words, from } = at
  const shown = () => words.slice(from - 1, from + 3).join(' ')
  const lower = name.toLowerCase().replace(/\.exe$/, '')
  const found = NOT_READ_BY_NAME[lower]
  if (found !== undefined) return found(at) ? shown() : null
  // Code in another language among its words (inline-code.ts).
  const inline = Object.hasOwn(INLINE_CODE_BY_NAME, lower) ? INLINE_CODE_BY_NAME[lower] : undefined
  if (inline?.(at) === true || pythonGivenCode(lower, at)) return shown()
  if (POSIX_SHELLS.includes(name)) {
    const start = posixShellOptions(words, from, name)
    // Too many options to read: hand-offs.ts has it unread already.
    if (start === 'too-many' || start.printsOnly) return null
    // `-c` whose script is not among the words: `xargs sh -c` takes it
    // from its input.
    if (start.script) return start.operand === null ? shown() : null
    if (at.fromInput) return null
    return start.input || start.operand === null ? shown() : null
  }
  if (name === FISH || CSH_SHELLS.includes(name)) {
    const read = readOptions(words, from, name === FISH ? FISH_OPTIONS : CSH_OPTIONS)
    const names = read.options.map((option) => option.name)
    if (names.some((option) => option === 'version' || option === 'help')) return null
    const script = names.some((option) => (name === FISH ? FISH_LINES.has(option) : option === 'c'))
    if (script) return null
    if (at.fromInput) return null
    return names.includes('s') || read.firstOperand >= words.length ? shown() : null
  }
  return null
}

/** Per program, whether it runs a program not read (`programNotRead`). */
const NOT_READ_BY_NAME: Readonly<Record<string, (at: ProgramAt) => boolean>> = {
  pwsh: powerShell,
  'pwsh-preview': powerShell,
  powershell: powerShell,
  ssh: (at) => secureShell(at, SSH_OPTIONS),
  scp: (at) => secureShell(at, SCP_OPTIONS),
  sftp: (at) => secureShell(at, SFTP_OPTIONS),
  // A shell for the group: `sg wheel`, `newgrp wheel`.
  sg: ({ words, from }) => sgLine(words, from) === null,
  newgrp: () => true,
  // A script read from its input: `source /dev/stdin <<< '…'`, `. /dev/fd/0`.
  source: sourcesInput,
  '.': sourcesInput,
  // A shell, unless it runs a line (`su -c`), or for runuser a command
  // (`runuser -u me -- make`).
  su: (at) => startsShell(at, ['c', 'command', 'session-command']),
  runuser: (at) => startsShell(at, ['c', 'command', 'session-command', 'u', 'user']),
  script: (at) => startsShell(at, ['c', 'command']),
  // With `-s` or `-i` and no command, the shell they start.
  sudo: (at) => shellWithoutCommand(at, SUDO_OPTIONS, ['s', 'i', 'shell', 'login']),
  doas: (at) => shellWithoutCommand(at, DOAS_OPTIONS, ['s']),
  // With no command, the person's shell.
  pkexec: (at) => shellWithoutCommand(at, PKEXEC_OPTIONS, []),
  unshare: (at) => shellWithoutCommand(at, UNSHARE_OPTIONS, []),
  nsenter: (at) => shellWithoutCommand(at, NSENTER_OPTIONS, []),
  fakeroot: (at) => shellWithoutCommand(at, FAKEROOT_OPTIONS, []),
  firejail: (at) => shellWithoutCommand(at, LONG_ONLY, []),
  chroot: ({ words, from }) => readOptions(words, from, LONG_ONLY).firstOperand + 1 >= words.length,
  // The shell it makes, unless it runs a line (`--run`, `--command`: read
  // as lines, hand-offs.ts).
  'nix-shell': ({ words, from }) =>
    !words.slice(from).some((word) => /^--(?:run|command|help|version)(?:=|$)/.test(word)),
}

/** The programs judged by their name here (besides the shells). */
export const PROGRAMS_NOT_READ = [
  ...Object.keys(NOT_READ_BY_NAME),
  ...Object.keys(INLINE_CODE_BY_NAME),
  'python',
  'python3',
]

/** Options whose long forms all take `=value` (or are not known here and
 *  take none). */
const LONG_ONLY: OptionSpec = { flags: '', withValue: '', long: {}, stopsAtOperand: true }

/** Whether `su`, `runuser` or `script` starts a shell: it is given none of
 *  `running` (the options that give it a line or a command). */
function startsShell({ name, words, from }: ProgramAt, running: readonly string[]): boolean {
  const spec = LINE_OPTION_PROGRAMS[name]
  if (spec === undefined) return false
  const read = readOptions(words, from, spec)
  return !read.options.some((option) => running.includes(option.name))
}

/** Whether a wrapper starts a shell: it is given one of `shell` (for
 *  `sudo -s`), or none is needed, and no command follows its options. */
function shellWithoutCommand(
  { words, from }: ProgramAt,
  spec: OptionSpec,
  shell: readonly string[],
): boolean {
  const read = readOptions(words, from, spec)
  if (read.firstOperand < words.length) return false
  if (read.options.some((option) => option.name === 'help' || option.name === 'version')) {
    return false
  }
  return shell.length === 0 || read.options.some((option) => shell.includes(option.name))
}

const SUDO_OPTIONS: OptionSpec = {
  flags: 'AbBEeHiKklNnPSsVv',
  withValue: 'CDghpRrTtUu',
  long: {
    shell: 'none',
    login: 'none',
    user: 'required',
    group: 'required',
    help: 'none',
    version: 'none',
    'preserve-env': 'optional',
  },
  stopsAtOperand: true,
}
const DOAS_OPTIONS: OptionSpec = { flags: 'Lns', withValue: 'aCu', long: {}, stopsAtOperand: true }
const PKEXEC_OPTIONS: OptionSpec = {
  flags: '',
  withValue: '',
  long: { user: 'required', help: 'none', version: 'none' },
  stopsAtOperand: true,
}
const UNSHARE_OPTIONS: OptionSpec = {
  flags: 'muinpUCTfrcl',
  withValue: 'RwSG',
  long: Object.fromEntries(
    ['map-user', 'map-group', 'map-users', 'map-groups', 'setuid', 'setgid', 'propagation']
      .concat(['root', 'wd', 'monotonic', 'boottime', 'load-interp'])
      .map((option) => [option, 'required']),
  ),
  stopsAtOperand: true,
}
const NSENTER_OPTIONS: OptionSpec = {
  flags: 'aFcZe',
  withValue: 'tSGN',
  optionalValue: 'muinpUCTrw',
  long: { target: 'required', setuid: 'required', setgid: 'required' },
  stopsAtOperand: true,
}
const FAKEROOT_OPTIONS: OptionSpec = {
  flags: 'uhv',
  withValue: 'lsib',
  long: { lib: 'required', faked: 'required' },
  stopsAtOperand: true,
}

/**
 * Whether PowerShell runs command text (`-c`, `-Command`, `-EncodedCommand`,
 * `-CommandWithArgs`, Windows PowerShell's first operand), or reads it
 * from its input or its person (no `-File`): PowerShell's language is not
 * read here. `-File x.ps1` (pwsh's first operand too) runs a script file.
 * PowerShell takes any unambiguous start of a parameter's name, in any
 * case, after `-`, `--` or `/`.
 */
function powerShell({ name, words, from }: ProgramAt): boolean {
  let file = false
  for (let i = from; i < words.length; i += 1) {
    const word = words[i] ?? ''
    const parameter = /^(?:--?|\/)([A-Za-z?]+)/.exec(word)?.[1]?.toLowerCase()
    if (parameter === undefined) {
      // The first operand: a script file for pwsh, command text for
      // Windows PowerShell.
      return name.toLowerCase().startsWith('powershell')
    }
    const is = (full: string, least = 1) => parameter.length >= least && full.startsWith(parameter)
    if (['c', 'e', 'ec', 'cwa'].includes(parameter)) return true
    if (is('command') || is('encodedcommand', 2) || is('commandwithargs', 8)) return true
    if (is('version') || is('help') || parameter === '?') return false
    if (is('file')) file = true
    if (POWERSHELL_VALUES.some((full) => full === parameter || is(full, 3))) i += 1
  }
  return !file
}

/** PowerShell's parameters whose value is the next word. */
const POWERSHELL_VALUES = [
  ...['executionpolicy', 'ep', 'ex', 'workingdirectory', 'wd', 'outputformat', 'of', 'o'],
  ...['inputformat', 'if', 'in', 'settingsfile', 'configurationname', 'custompipename'],
  ...['windowstyle', 'w', 'file', 'f'],
]

/** ssh's, scp's and sftp's options; each option's letter that runs a
 *  program here: ssh's `-F` (a config whose `ProxyCommand`, `LocalCommand`
 *  or `Match exec` runs one), scp's and sftp's `-S` (the ssh program),
 *  sftp's `-D` (its server, run here). */
const SSH_OPTIONS: OptionSpec & { runs: string } = {
  flags: '46AaCfGgKkMNnqsTtVvXxYy',
  withValue: 'BbcDEeFIiJLlmOoPpQRSWw',
  long: {},
  stopsAtOperand: true,
  runs: 'F',
}
const SCP_OPTIONS: OptionSpec & { runs: string } = {
  flags: '346ABCOpqRrTv',
  withValue: 'cDFiJlLoPSX',
  long: {},
  stopsAtOperand: false,
  runs: 'FS',
}
const SFTP_OPTIONS: OptionSpec & { runs: string } = {
  flags: '46AaCfNpqrv',
  withValue: 'BbcDFiJlLoPRSsX',
  long: {},
  stopsAtOperand: true,
  runs: 'DFS',
}

/** `-o` settings whose value runs a program here. */
const SSH_COMMAND_SETTINGS = /^\s*(?:proxycommand|localcommand|knownhostscommand|match)\b/i

/**
 * Whether ssh (or scp, sftp) runs a program this reading does not hold:
 * a command on the host (`ssh host make`, which may be this machine), the
 * shell it opens there reading its input (`ssh host`), or a program here
 * its options name. Given no host (`GIT_SSH_COMMAND='ssh -i k'`, whose
 * host git adds) only the options count; scp's operands are files.
 */
function secureShell(
  { name, words, from }: ProgramAt,
  spec: OptionSpec & { runs: string },
): boolean {
  const read = readOptions(words, from, spec)
  for (const option of read.options) {
    if (spec.runs.includes(option.name)) return true
    if (option.name === 'o' && SSH_COMMAND_SETTINGS.test(option.value ?? '')) return true
  }
  if (name.toLowerCase() !== 'ssh') return false
  if (read.options.some((option) => option.name === 'V')) return false
  return read.firstOperand < words.length
}

/** Whether `source` or `.` is given its input as the file it runs. */
function sourcesInput({ words, from }: ProgramAt): boolean {
  const at = words[from] === '--' ? from + 1 : from
  return /^\/(?:dev\/(?:stdin|fd\/\d+)|proc\/(?:self|\d+)\/fd\/\d+)$/.test(words[at] ?? '')
}
