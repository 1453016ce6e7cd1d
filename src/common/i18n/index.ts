import type { Language } from '../consent-view.ts'
import { en } from './en.ts'
import { zhCN } from './zh-CN.ts'

/** Every catalog has exactly the keys of the English one, each a string. */
type Shape<T> = { readonly [K in keyof T]: T[K] extends string ? string : Shape<T[K]> }
export type Catalog = Shape<typeof en>

/** Dotted paths to every message, e.g. `'consent.button.deny'`. */
type Leaves<T> = {
  [K in keyof T & string]: T[K] extends string ? K : `${K}.${Leaves<T[K]>}`
}[keyof T & string]
export type MessageKey = Leaves<typeof en>

export const catalogs: Readonly<Record<Language, Catalog>> = {
  en,
  'zh-CN': zhCN,
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g

/**
 * Looks up `key` in the catalog for `lang` and fills `{{name}}` placeholders
 * from `vars`. The result is plain text: callers put it in `textContent`,
 * never in markup, so values are not escaped here. A placeholder without a
 * value stays visible rather than silently disappearing.
 */
export function translate(
  lang: Language,
  key: MessageKey,
  vars: Readonly<Record<string, string>> = {},
): string {
  const message = lookup(catalogs[lang], key) ?? lookup(catalogs.en, key) ?? key
  return message.replace(PLACEHOLDER, (placeholder, name: string) =>
    Object.hasOwn(vars, name) ? (vars[name] ?? placeholder) : placeholder,
  )
}

/** A message split at its placeholders, for a UI that puts an element
 *  (a styled value) where a placeholder stands instead of plain text. */
export type MessagePart = { text: string } | { placeholder: string }

export function messageParts(lang: Language, key: MessageKey): MessagePart[] {
  const message = lookup(catalogs[lang], key) ?? lookup(catalogs.en, key) ?? key
  const parts: MessagePart[] = []
  let last = 0
  for (const match of message.matchAll(PLACEHOLDER)) {
    if (match.index > last) parts.push({ text: message.slice(last, match.index) })
    parts.push({ placeholder: match[1] ?? '' })
    last = match.index + match[0].length
  }
  if (last < message.length) parts.push({ text: message.slice(last) })
  return parts
}

function lookup(catalog: Catalog, key: string): string | undefined {
  let node: unknown = catalog
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return typeof node === 'string' ? node : undefined
}
