import { describe, expect, it } from 'vitest'
import {
  DISPLAY_STORAGE_KEY,
  effectivePreferences,
  readChoices,
  systemLanguage,
  writeChoices,
} from './preferences.ts'

const storage = (value: string | null) => ({ getItem: () => value })

describe('display preferences', () => {
  it('reads stored choices and falls back to "system" for anything else', () => {
    expect(readChoices(storage(JSON.stringify({ theme: 'dark', lang: 'zh-CN' })))).toEqual({
      theme: 'dark',
      lang: 'zh-CN',
    })
    for (const stored of [null, 'not json', '"dark"', '{"theme":"pink","lang":"fr"}', '[]']) {
      expect(readChoices(storage(stored))).toEqual({ theme: 'system', lang: 'system' })
    }
    expect(readChoices(undefined)).toEqual({ theme: 'system', lang: 'system' })
  })

  it('writes what it reads back', () => {
    const saved = new Map<string, string>()
    writeChoices({ setItem: (key, value) => saved.set(key, value) }, { theme: 'light', lang: 'en' })
    expect(readChoices({ getItem: (key) => saved.get(key) ?? null })).toEqual({
      theme: 'light',
      lang: 'en',
    })
    expect([...saved.keys()]).toEqual([DISPLAY_STORAGE_KEY])
  })

  it('survives storage that refuses to write', () => {
    expect(() =>
      writeChoices(
        {
          setItem: () => {
            throw new Error('quota')
          },
        },
        { theme: 'light', lang: 'en' },
      ),
    ).not.toThrow()
  })

  it('maps any Chinese system language to zh-CN and everything else to English', () => {
    expect(systemLanguage(['zh-CN'])).toBe('zh-CN')
    expect(systemLanguage(['zh-TW', 'en'])).toBe('zh-CN')
    expect(systemLanguage(['en-GB', 'zh-CN'])).toBe('en')
    expect(systemLanguage(['fr'])).toBe('en')
    expect(systemLanguage([])).toBe('en')
  })

  it('follows the system for "system" and the choice otherwise', () => {
    const system = { lang: 'zh-CN', dark: true } as const
    expect(effectivePreferences({ theme: 'system', lang: 'system' }, system)).toEqual({
      lang: 'zh-CN',
      theme: 'dark',
    })
    expect(effectivePreferences({ theme: 'light', lang: 'en' }, system)).toEqual({
      lang: 'en',
      theme: 'light',
    })
  })
})
