/**
 * A name a command or a server chose (a path it made, where a link it made
 * led), as it is written into a note the model and the person read. A
 * name may hold any character but `/` and NUL: with a line break in it, a
 * path the note lists would end the note's line and start one the note
 * never wrote (`[… moved aside]`, `nothing else was made`), in the words
 * Assent uses. Every character that breaks a line, controls a terminal,
 * changes the direction of text or draws nothing is written as its code
 * point, `\u{A}`, and a backslash as two, so the name reads back exactly
 * and no name can pass for another or for the note's own words.
 */
export function nameInNote(name: string): string {
  return name.replace(UNSAFE_IN_NOTE, (char) =>
    char === '\\' ? '\\\\' : `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`,
  )
}

// Controls (C0, C1, DEL), format characters (bidi, zero width), the line
// and paragraph separators, unassigned code points and lone surrogates,
// and the backslash the escapes start with.
const UNSAFE_IN_NOTE = /[\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cn}\p{Cs}]/gu
