import { quotedCommandLine } from '../contracts/shell-quoting.ts'

/**
 * A command as the person reads it: one line that says exactly which
 * arguments the program receives. Without a shell the argv goes to the
 * program as is, so an argument with a space, a quote or anything a shell
 * would read is shown in POSIX single quotes (`'my file.txt'`), and an
 * empty one as `''`: `rm 'a b'` and `rm a b` never look alike. With a
 * shell, the line is what the shell receives (the argv joined by spaces),
 * shown as is, since the shell does the splitting.
 *
 * The result still goes through `displaySafe`: quoting makes the argument
 * boundaries visible, escapes make hidden characters visible.
 */

export function commandLineDisplay(argv: readonly string[], shell: boolean): string {
  return shell ? argv.join(' ') : quotedCommandLine(argv)
}

/** Splits a line made by `commandLineDisplay(argv, false)` back into its
 *  argv: the inverse that proves the display is unambiguous. */
export function readCommandLineDisplay(line: string): string[] {
  const argv: string[] = []
  let current = ''
  let started = false
  let quoted = false
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index] ?? ''
    if (quoted) {
      if (char === "'") quoted = false
      else current += char
    } else if (char === "'") {
      quoted = true
      started = true
    } else if (char === '\\' && line[index + 1] === "'") {
      current += "'"
      started = true
      index += 1
    } else if (char === ' ') {
      if (started) argv.push(current)
      current = ''
      started = false
    } else {
      current += char
      started = true
    }
  }
  if (started) argv.push(current)
  return argv
}
