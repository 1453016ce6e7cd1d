import { describe, expect, it } from 'vitest'
import { LanguageSchema } from '../consent-view.ts'
import { catalogs, messageParts, translate } from './index.ts'

/** Every leaf of a catalog as `[dotted.key, value]`; a non-string, non-object
 *  leaf is reported with its type so the test names it. */
function leaves(node: unknown, prefix = ''): Array<[string, unknown]> {
  if (typeof node !== 'object' || node === null) return [[prefix, node]]
  return Object.entries(node).flatMap(([key, value]) =>
    leaves(value, prefix === '' ? key : `${prefix}.${key}`),
  )
}

const placeholders = (message: string) =>
  [...message.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort()

describe('i18n catalogs', () => {
  const english = new Map(leaves(catalogs.en))

  it('has a catalog for every language the consent view can ask for', () => {
    expect(Object.keys(catalogs).sort()).toEqual([...LanguageSchema.options].sort())
  })

  for (const lang of LanguageSchema.options) {
    const catalog = new Map(leaves(catalogs[lang]))

    it(`${lang} has exactly the keys of the English catalog`, () => {
      const missing = [...english.keys()].filter((key) => !catalog.has(key))
      const extra = [...catalog.keys()].filter((key) => !english.has(key))
      expect({ missing, extra }).toEqual({ missing: [], extra: [] })
    })

    it(`${lang} has a non-empty string for every message`, () => {
      const bad = [...catalog].filter(
        ([, value]) => typeof value !== 'string' || value.trim() === '',
      )
      expect(bad.map(([key]) => key)).toEqual([])
    })

    it(`${lang} uses the same placeholders as English in every message`, () => {
      const mismatched = [...catalog]
        .filter(([key, value]) => typeof value === 'string' && english.has(key))
        .filter(
          ([key, value]) =>
            placeholders(value as string).join() !==
            placeholders(english.get(key) as string).join(),
        )
      expect(mismatched.map(([key]) => key)).toEqual([])
    })
  }

  it('detects a missing key and an empty string (the checks above can fail)', () => {
    const broken = { consent: { button: { deny: '' } } }
    const keys = new Map(leaves(broken))
    expect([...english.keys()].filter((key) => !keys.has(key))).toContain(
      'consent.button.allowOnce',
    )
    expect([...keys].filter(([, value]) => value === '').map(([key]) => key)).toEqual([
      'consent.button.deny',
    ])
  })
})

describe('translate', () => {
  it('fills placeholders with the given values', () => {
    expect(
      translate('en', 'consent.modeChange.sentence', {
        room: 'Design',
        from: 'Ask for approval',
        to: 'Full access',
      }),
    ).toBe('Change the mode of Design from Ask for approval to Full access.')
  })

  it('returns Simplified Chinese for zh-CN', () => {
    expect(translate('zh-CN', 'consent.button.deny')).toBe('拒绝')
    expect(translate('zh-CN', 'mode.full-access.name')).toBe('完全访问')
  })

  it('keeps markup in values as plain text and an unfilled placeholder visible', () => {
    const text = translate('en', 'consent.modeChange.sentence', { room: '<b>x</b>' })
    expect(text).toBe('Change the mode of <b>x</b> from {{from}} to {{to}}.')
  })

  it('does not read inherited properties as messages', () => {
    expect(translate('en', 'consent.toString' as never)).toBe('consent.toString')
  })
})

describe('messageParts', () => {
  it('splits a message at its placeholders, keeping the text between them', () => {
    expect(messageParts('en', 'consent.title.write')).toEqual([
      { text: 'Allow ' },
      { placeholder: 'agent' },
      { text: ' to write ' },
      { placeholder: 'path' },
      { text: '?' },
    ])
    expect(messageParts('en', 'consent.button.deny')).toEqual([{ text: 'Deny' }])
  })
})
