import { readOptions, type OptionSpec } from './option-words.ts'
import type { ShellReading } from './shell-words.ts'

// `env -S 'string'` (`--split-string`, a shebang's `#!/usr/bin/env -S`):
// env splits the string into words itself, quotes honoured, and runs them
// as its command, for the person-only rule's reading of a command line
// (hand-offs.ts). `env -S 'cp x .g""it/config'` copies to `.git/config`,
// which no word of the line the shell reads names.

/** env's options: GNU coreutils' and the BSDs' (`-P`, `-L`, `-U`). */
const ENV_OPTIONS: OptionSpec = {
  flags: 'i0v',
  withValue: 'uCSaPLU',
  long: {
    'ignore-environment': 'none',
    null: 'none',
    unset: 'required',
    chdir: 'required',
    'split-string': 'required',
    'block-signal': 'optional',
    'default-signal': 'optional',
    'ignore-signal': 'optional',
    'list-signal-handling': 'none',
    debug: 'none',
    help: 'none',
    version: 'none',
    argv0: 'required',
  },
  // env stops at the first `NAME=value` or the command.
  stopsAtOperand: true,
}

/** What env runs when it is given `-S`: `env`, the words each string is
 *  split into, then the rest of its words (read as a command line of its
 *  own, env being a wrapper); `unread` when an option of env's is not
 *  known here, so which word is a string is not either. Null when env has
 *  no `-S`. env's own words start at `words[from]`. */
export function envSplitReading(
  words: readonly string[],
  from: number,
): { reading: ShellReading } | { unread: string } | null {
  const read = readOptions(words, from, ENV_OPTIONS)
  const unknown = read.unknown ?? read.stopped
  if (unknown !== null) return { unread: `env ${unknown}` }
  const strings = read.options.filter(({ name }) => name === 'S' || name === 'split-string')
  if (strings.length === 0) return null
  const out = ['env']
  let runTime: string | null = null
  for (const { value } of strings) {
    const split = splitString(value ?? '')
    out.push(...split.words)
    runTime ??= split.runTime
  }
  out.push(...words.slice(read.firstOperand))
  return { reading: { words: out, runTime } }
}

const SEPARATORS = new Set([' ', '\t', '\n', '\v', '\f', '\r'])
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '#': '#',
  $: '$',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
}

/**
 * The words GNU env's `-S` makes of `text`: white space parts words
 * outside quotes; `'…'` keeps all but `\\` and `\'`; `"…"` and bare text
 * take the escapes above, `\_` (a space in double quotes, else a break
 * between words) and `\c` (the end); a `#` starting a word starts a
 * comment. `${NAME}` takes a variable's value, built at run time. Where
 * env refuses the string (an unknown escape, `$` without braces, an open
 * quote) it runs nothing; the reading is kept anyway, and a `$` is taken
 * as built at run time: reading more can only make the action ask.
 */
export function splitString(text: string): ShellReading {
  const words: string[] = []
  let runTime: string | null = null
  let word = ''
  let inWord = false
  let quote: '' | "'" | '"' = ''
  const end = () => {
    if (inWord) words.push(word)
    word = ''
    inWord = false
  }
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? ''
    const next = text[i + 1] ?? ''
    if (quote === '' && SEPARATORS.has(char)) {
      end()
      continue
    }
    if (quote === '' && char === '#' && !inWord) break
    inWord = true
    if (char === quote) {
      quote = ''
      continue
    }
    if (quote === '' && (char === "'" || char === '"')) {
      quote = char
      continue
    }
    if (char === '\\' && !(quote === "'" && next !== '\\' && next !== "'")) {
      i += 1
      if (next === 'c') break
      if (next === '_') {
        if (quote === '"') word += ' '
        else end()
        continue
      }
      word += ESCAPES[next] ?? next
      continue
    }
    if (char === '$' && quote !== "'") {
      const close = text.indexOf('}', i)
      runTime ??= next === '{' && close !== -1 ? text.slice(i, close + 1) : '$'
    }
    word += char
  }
  end()
  return { words, runTime }
}
