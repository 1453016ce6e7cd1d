import { useCallback, useEffect, useMemo, useState } from 'react'
import type { WorkbenchPreferences } from '../../common/assent-gui.ts'
import type { Language } from '../../common/consent-view.ts'

export type ThemeChoice = 'system' | 'light' | 'dark'
export type LanguageChoice = 'system' | Language

/** What the person picked in the settings control; "system" follows the OS. */
export interface DisplayChoices {
  theme: ThemeChoice
  lang: LanguageChoice
}

export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark']
export const LANGUAGE_CHOICES: readonly LanguageChoice[] = ['system', 'en', 'zh-CN']
export const DISPLAY_STORAGE_KEY = 'assent.workbench.display'
const SYSTEM_CHOICES: DisplayChoices = { theme: 'system', lang: 'system' }
const DARK_QUERY = '(prefers-color-scheme: dark)'

/** Reads the stored choices; anything unreadable counts as "system". */
export function readChoices(storage: Pick<Storage, 'getItem'> | undefined): DisplayChoices {
  let stored: unknown
  try {
    stored = JSON.parse(storage?.getItem(DISPLAY_STORAGE_KEY) ?? 'null')
  } catch {
    return SYSTEM_CHOICES
  }
  const record = (typeof stored === 'object' && stored !== null ? stored : {}) as Record<
    string,
    unknown
  >
  return {
    theme: THEME_CHOICES.find((choice) => choice === record.theme) ?? 'system',
    lang: LANGUAGE_CHOICES.find((choice) => choice === record.lang) ?? 'system',
  }
}

export function writeChoices(
  storage: Pick<Storage, 'setItem'> | undefined,
  choices: DisplayChoices,
) {
  try {
    storage?.setItem(DISPLAY_STORAGE_KEY, JSON.stringify(choices))
  } catch {
    // Storage full or disabled: the choice still applies until the page reloads.
  }
}

/** The system language Assent has a catalog for: Chinese for any zh-*, else English. */
export function systemLanguage(languages: readonly string[]): Language {
  const first = languages[0] ?? 'en'
  return first.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en'
}

export function effectivePreferences(
  choices: DisplayChoices,
  system: { lang: Language; dark: boolean },
): WorkbenchPreferences {
  return {
    lang: choices.lang === 'system' ? system.lang : choices.lang,
    theme: choices.theme === 'system' ? (system.dark ? 'dark' : 'light') : choices.theme,
  }
}

export function browserLanguages(): readonly string[] {
  return navigator.languages?.length ? navigator.languages : [navigator.language]
}

export function systemDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia(DARK_QUERY).matches
}

export const ROOM_STORAGE_KEY = 'assent.workbench.room'

/** The room the person last had open, as stored; nothing when unreadable.
 *  Only an id: whether that room still exists is the runtime's answer. */
export function readLastRoom(storage: Pick<Storage, 'getItem'> | undefined): string | undefined {
  try {
    const stored = storage?.getItem(ROOM_STORAGE_KEY)
    return stored ? stored : undefined
  } catch {
    return undefined
  }
}

/** Remembers the open room (or that none is), so the next start reopens it. */
export function writeLastRoom(
  storage: Pick<Storage, 'setItem' | 'removeItem'> | undefined,
  roomId: string | undefined,
) {
  try {
    if (roomId === undefined) storage?.removeItem(ROOM_STORAGE_KEY)
    else storage?.setItem(ROOM_STORAGE_KEY, roomId)
  } catch {
    // Storage full or disabled: the next start opens the new-room form.
  }
}

/** localStorage, or undefined where reading it throws (storage disabled). */
export function localStore(): Storage | undefined {
  try {
    return window.localStorage
  } catch {
    return undefined
  }
}

/**
 * The display choices, persisted in localStorage, and what they come to
 * right now: "system" follows `prefers-color-scheme` and the browser's
 * language as they change.
 */
export function useDisplayPreferences(): {
  choices: DisplayChoices
  setChoices: (choices: DisplayChoices) => void
  effective: WorkbenchPreferences
} {
  const [choices, setStoredChoices] = useState(() => readChoices(localStore()))
  const [dark, setDark] = useState(systemDark)
  const [languages, setLanguages] = useState(browserLanguages)

  useEffect(() => {
    if (typeof matchMedia !== 'function') return
    const query = matchMedia(DARK_QUERY)
    const changed = () => setDark(query.matches)
    query.addEventListener('change', changed)
    return () => query.removeEventListener('change', changed)
  }, [])

  useEffect(() => {
    const changed = () => setLanguages(browserLanguages())
    window.addEventListener('languagechange', changed)
    return () => window.removeEventListener('languagechange', changed)
  }, [])

  const setChoices = useCallback((next: DisplayChoices) => {
    writeChoices(localStore(), next)
    setStoredChoices(next)
  }, [])

  const systemLang = systemLanguage(languages)
  const effective = useMemo(
    () => effectivePreferences(choices, { lang: systemLang, dark }),
    [choices, systemLang, dark],
  )
  return { choices, setChoices, effective }
}
