/**
 * Words Chinese UIs keep in Latin letters: the product's and protocols'
 * names, a format's name, key names, and the shell and git, which are
 * tools' names.
 */
export const LATIN_NAMES_KEPT: readonly string[] = [
  'Assent',
  'MCP',
  'JSON',
  'Enter',
  'Shift',
  'Tab',
  'Esc',
  'shell',
  'sh',
  'git',
]

const PLACEHOLDER = /\{\{\s*\w+\s*\}\}/g

/** The English words left in a translated message once its placeholders
 *  and the names in `LATIN_NAMES_KEPT` are set aside: empty when a person
 *  reading that language finds no English in it. */
export function englishWordsIn(message: string): string[] {
  return (message.replace(PLACEHOLDER, ' ').match(/[A-Za-z]+/g) ?? []).filter(
    (word) => !LATIN_NAMES_KEPT.includes(word),
  )
}
