import path from 'node:path'
import { isGitProgram } from './git-hand-offs.ts'

// Where in a simple command the shell runs a program, for the person-only
// rule's reading of command lines (shell-commands.ts, writes-unnamed.ts,
// held-inside.ts): first, after assignments, the shell's keywords and the
// wrappers known to run the rest; and, since any program may run its
// words as a command, wherever a program the rules read is a word of its
// own.

/** Words after which the next word is still a command: wrappers that run
 *  the rest (`sudo git …`, `env X=1 git …`, `timeout 10 git …`, `taskset
 *  1 git …`, `strace -o log git …`, busybox's applets, zsh's `noglob`).
 *  After one of these, a word the shell makes (`$G`, `gi?`) may be the
 *  command too. The list is not what finds git behind a wrapper: any
 *  program may run its words as a command (`ssh-agent git …`, `uv run git
 *  …`), so a program the rules read is judged wherever it is a word of its
 *  own (`runsFromHere`). */
export const WRAPPERS = new Set([
  ...['sudo', 'doas', 'pkexec', 'runuser', 'env', 'command', 'builtin', 'exec', 'noglob'],
  ...['nocorrect', 'nohup', 'time', 'nice', 'ionice', 'chrt', 'taskset', 'timeout', 'stdbuf'],
  ...['xargs', 'parallel', 'chronic', 'setsid', 'flock', 'unbuffer', 'script', 'setpriv'],
  ...['prlimit', 'unshare', 'nsenter', 'chroot', 'setarch', 'fakeroot', 'eatmydata', 'strace'],
  ...['ltrace', 'valgrind', 'watch', 'firejail', 'systemd-run', 'busybox'],
])

/** The shell's keywords after which the next word is a command (fish's
 *  `and`, `or`, `not` and `begin` too). */
export const KEYWORDS = new Set([
  ...['then', 'do', 'else', 'elif', 'if', 'while', 'until', '!', '{', 'coproc'],
  ...['and', 'or', 'not', 'begin'],
])
const OPERATORS = new Set([';', '&', '&&', '|', '||', '(', ')'])

/**
 * Whether a word that is not the command of a simple command is judged as
 * a command run from there: git (or hub, or a dashed git program), and a
 * wrapper, past which the next word is a command (`xargs git`, whose
 * command comes from its input). Which programs run their words as a
 * command is not known here (`ssh-agent`, `dbus-run-session --`,
 * `xvfb-run`, `uv run`, `direnv exec .` all do), so none is trusted not
 * to: `echo git config x` is judged as `git config x`, which only ever
 * asks more. A line another program hands on (`sh -c`, `env -S`, `watch`)
 * is read at any word already (hand-offs.ts). A shell reading its input
 * or `ssh` are judged only where the shell runs them: as a later word
 * they are most often a value (`rsync -e ssh`, `which bash`), and what
 * they would run is a script the command may run anyway (`bash x.sh`).
 */
export function runsFromHere(name: string): boolean {
  return isGitProgram(name) || WRAPPERS.has(name)
}

/** A program a simple command runs, with the words after it. */
export interface ProgramRun {
  name: string
  rest: string[]
}

/**
 * What a program run with the words after it does, by its name: how a
 * caller of `programsRun` judges the programs it reads for, or undefined
 * for one it does not. The words are taken only for a program it knows
 * (a command line may hold many words past a wrapper).
 */
export type ProgramJudge = (name: string) => ((rest: readonly string[]) => boolean) | undefined

/**
 * The programs `judge` knows and picks (given the words after each) that
 * the simple commands of command lines run: where the shell finds a
 * program (after assignments, the shell's keywords and the wrappers that
 * run the rest: `{ tar -xf a.tar; }`, `if …; then rm -rf x; fi`, `!
 * rm`, `sudo rm`, `timeout 5 rm`, `busybox tar`) and the command `find`'s
 * `-exec` runs, as `commandFinding` reads them. Any later word picked
 * counts too, as run from there (`runsFromHere`): a wrapper's options are
 * not read here (`sudo -u root rm`), and which programs run their words
 * as a command is not known (`ssh-agent tar -xf a.tar`, `uv run git
 * merge x`); over-reading only ever asks more.
 */
export function programsRun(
  readings: readonly { words: readonly string[] }[],
  judge: ProgramJudge,
): ProgramRun[] {
  return readings.flatMap(({ words }) =>
    simpleCommands(words).flatMap((command) => programRun(command, judge) ?? []),
  )
}

function programRun(command: readonly string[], judge: ProgramJudge): ProgramRun | null {
  let expectCommand = true
  for (let i = 0; i < command.length; i += 1) {
    const word = command[i] ?? ''
    const name = path.basename(word)
    if (expectCommand && /^[A-Za-z_]\w*=/.test(word)) continue
    const picks = judge(name)
    if (picks !== undefined) {
      const rest = command.slice(i + 1)
      if (picks(rest)) return { name, rest }
    }
    if (name === 'find') {
      const exec = command.findIndex((arg, at) => at > i && /^-(?:exec|ok)(?:dir)?$/.test(arg))
      if (exec !== -1) return programRun(command.slice(exec + 1), judge)
    }
    expectCommand = KEYWORDS.has(word) || WRAPPERS.has(name)
  }
  return null
}

/** The words of each simple command, operators dropped, redirections and
 *  their targets left out. */
export function simpleCommands(words: readonly string[]): string[][] {
  const commands: string[][] = [[]]
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? ''
    if (OPERATORS.has(word)) commands.push([])
    else if (word === '>') i += 1
    else commands.at(-1)?.push(word)
  }
  return commands.filter((command) => command.length > 0)
}
