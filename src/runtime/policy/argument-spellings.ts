import { fileURLToPath } from 'node:url'
import { leadingExpansion } from './leading-expansion.ts'

// What one string of an action's arguments may name, read as a server
// may read it, for the person-only rule (person-only.ts): as written,
// word by word, as the path a `file:` URI names, percent-decoded, cut at
// a NUL, and with a leading `~` or `$HOME` as the person's home. Each reading only adds candidates, so an action can only come
// to ask more, never less.

/** Splits a command line or free text into the words that may be paths:
 *  on white space, quotes, shell operators, `=` (`--out=.git/x`) and `:`
 *  (`src:.git/hooks`, a mount or a copy's `host:path`). */
export const WORD_SEPARATORS = /[\s'"`;|&<>()=,:]+/

/** How many times a percent-encoded string is decoded again: a value
 *  encoded twice (`%252e`) is read as a server that decodes twice would. */
const MAX_DECODINGS = 3

/** Adds what `value` may name to `out`; false when it cannot be read. */
export function addPathAndWords(value: string, out: Set<string>, decodings = 0): boolean {
  if (value === '') return true
  if (value.includes('\0')) {
    // No path holds a NUL, but a server may stop reading at one, or drop
    // it: each part, and the whole without them, is checked.
    return [...value.split('\0'), value.replaceAll('\0', '')].every((part) =>
      addPathAndWords(part, out, decodings),
    )
  }
  out.add(value)
  // `~/x` or `$HOME/x`, which a server may expand (server-filesystem
  // does): the file in the person's home folder; `~bob/x`, `$PWD/../x`
  // where they lead (leading-expansion.ts).
  const expanded = leadingExpansion(value)
  if (expanded !== null) out.add(expanded)
  // A file: URI (an MCP resource, or any argument written as one) names
  // the path it points to, whatever its host and however it is escaped.
  const filePath = pathOfFileUri(value)
  if (filePath !== null) out.add(filePath)
  if (!addParts(value, out)) return false
  // A server may decode percent-escapes in what it is given, a URI or a
  // plain path alike (`.git%2Fconfig`, `%2egit/config`): what it would
  // read is checked too. Checking more candidates can only make an action
  // ask, never let one through.
  const decoded = percentDecoded(value)
  if (decoded !== value && decodings < MAX_DECODINGS) {
    return addPathAndWords(decoded, out, decodings + 1)
  }
  return true
}

/** Adds each part of `text` split where a program may split it (`--out=x`,
 *  `src:.git/hooks`), with what each part may stand for (`wordReadings`);
 *  false when one cannot be read. */
export function addParts(text: string, out: Set<string>): boolean {
  for (const part of text.split(WORD_SEPARATORS)) {
    if (part === '') continue
    out.add(part)
    const readings = wordReadings(part)
    if (readings === null) return false
    for (const reading of readings) out.add(reading)
  }
  return true
}

/** How many letters of a short option word are read as options before
 *  its glued value; a longer run cannot be read (the action asks). */
const MAX_GLUED_OPTION_LETTERS = 32

/**
 * What one word may stand for besides itself, read as a program or a
 * server may read it: a leading `~`, `$HOME` or `$PWD` as the folder it
 * stands for, and the value of a short option glued to it. `-o.git/config`
 * is `-o` with `.git/config` to `sort`, `gcc` or `curl`; which letters are
 * options and which the value is the program's own reading, so each
 * suffix after a letter that names a path (`/`, or a leading `.` or `~`)
 * is one (`-sSo.git/config`: `So.git/config`, `o.git/config`,
 * `.git/config`). Null for a run of letters longer than is read.
 */
export function wordReadings(word: string): string[] | null {
  const readings: string[] = []
  const expanded = leadingExpansion(word)
  if (expanded !== null) readings.push(expanded)
  const letters = /^-([A-Za-z0-9]+)/.exec(word)?.[1]
  if (letters === undefined) return readings
  if (letters.length > MAX_GLUED_OPTION_LETTERS) return null
  for (let at = 2; at <= letters.length + 1 && at < word.length; at += 1) {
    const value = word.slice(at)
    if (!/^[.~]|\//.test(value)) continue
    readings.push(value)
    const valueExpanded = leadingExpansion(value)
    if (valueExpanded !== null) readings.push(valueExpanded)
  }
  return readings
}

/** The path a `file:` URI names, or null for anything else. `fileURLToPath`
 *  refuses a host other than localhost and an escaped `/`; the URI's path
 *  is still where a server that reads it would look, so it is taken
 *  decoded. A URI that does not parse at all is checked as written (and,
 *  decoded, by the caller). */
function pathOfFileUri(value: string): string | null {
  if (!/^file:/i.test(value)) return null
  try {
    return fileURLToPath(value)
  } catch {
    try {
      return percentDecoded(new URL(value).pathname)
    } catch {
      return null
    }
  }
}

/** `value` with every run of percent-escapes decoded as UTF-8; in a run
 *  that is not valid UTF-8, the ASCII escapes (`%2e`, `%2F`) are decoded
 *  and the rest left as written. */
function percentDecoded(value: string): string {
  if (!value.includes('%')) return value
  return value.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run.replace(/%([0-7][0-9A-Fa-f])/g, (_escape, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      )
    }
  })
}
