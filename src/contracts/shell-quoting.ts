/**
 * POSIX shell quoting of an argument vector, one rule wherever a command
 * is written as one line: the line the person is shown
 * (`src/common/command-line-display.ts`), the line the policy reads an MCP
 * or ACP tool's argument vector as, and the line Assent records for it.
 * An argument that holds nothing a shell reads is left bare; any other,
 * the empty one included, goes in single quotes, a quote inside it written
 * `'\''`, so `rm 'a b'` and `rm a b` never read alike.
 */

/** Characters an argument may hold and still be written without quotes. */
const PLAIN_ARGUMENT = /^[A-Za-z0-9_@%+=:,./-]+$/

export function quoteArgument(argument: string): string {
  if (PLAIN_ARGUMENT.test(argument)) return argument
  return `'${argument.replaceAll("'", `'\\''`)}'`
}

/** The argument vector as one line a POSIX shell splits back into it. */
export function quotedCommandLine(argv: readonly string[]): string {
  return argv.map(quoteArgument).join(' ')
}
