import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  LANGUAGE_CHOICES,
  THEME_CHOICES,
  type DisplayChoices,
  type LanguageChoice,
  type ThemeChoice,
} from '../preferences.ts'
import { ChevronIcon, DisplayIcon } from './icons.tsx'

const THEME_LABEL = {
  system: 'workbench.settings.system',
  light: 'workbench.settings.light',
  dark: 'workbench.settings.dark',
} as const satisfies Record<ThemeChoice, string>

const LANGUAGE_LABEL = {
  system: 'workbench.settings.system',
  en: 'workbench.settings.english',
  'zh-CN': 'workbench.settings.chinese',
} as const satisfies Record<LanguageChoice, string>

/**
 * Theme and language behind one small button: "system" follows the OS, and
 * the choice is remembered. Escape or a click elsewhere closes it.
 */
export function SettingsControl({
  choices,
  onChange,
}: {
  choices: DisplayChoices
  onChange: (choices: DisplayChoices) => void
}) {
  const { t } = useTranslation()
  const panelId = useId()
  const themeId = useId()
  const languageId = useId()
  const [open, setOpen] = useState(false)
  const container = useRef<HTMLDivElement>(null)
  const toggle = useRef<HTMLButtonElement>(null)

  useEffect(() => {
    if (!open) return
    const outside = (event: PointerEvent) => {
      if (!container.current?.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('pointerdown', outside)
    return () => document.removeEventListener('pointerdown', outside)
  }, [open])

  return (
    <div
      className="settings"
      ref={container}
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || !open) return
        event.stopPropagation()
        setOpen(false)
        toggle.current?.focus()
      }}
      onBlur={(event) => {
        if (!container.current?.contains(event.relatedTarget as Node | null)) setOpen(false)
      }}
    >
      <button
        type="button"
        ref={toggle}
        className="button button--small settings__toggle"
        data-testid="settings-open"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen(!open)}
      >
        <DisplayIcon />
        <span>{t('workbench.settings.open')}</span>
        <ChevronIcon />
      </button>
      <div className="settings__panel" id={panelId} hidden={!open}>
        <label className="settings__field" htmlFor={themeId}>
          <span className="settings__label">{t('workbench.settings.theme')}</span>
          <select
            id={themeId}
            data-testid="settings-theme"
            value={choices.theme}
            onChange={(event) => onChange({ ...choices, theme: event.target.value as ThemeChoice })}
          >
            {THEME_CHOICES.map((choice) => (
              <option key={choice} value={choice}>
                {t(THEME_LABEL[choice])}
              </option>
            ))}
          </select>
        </label>
        <label className="settings__field" htmlFor={languageId}>
          <span className="settings__label">{t('workbench.settings.language')}</span>
          <select
            id={languageId}
            data-testid="settings-language"
            value={choices.lang}
            onChange={(event) =>
              onChange({ ...choices, lang: event.target.value as LanguageChoice })
            }
          >
            {LANGUAGE_CHOICES.map((choice) => (
              <option key={choice} value={choice} lang={choice === 'system' ? undefined : choice}>
                {t(LANGUAGE_LABEL[choice])}
              </option>
            ))}
          </select>
        </label>
      </div>
    </div>
  )
}
