import i18next, { type i18n } from 'i18next'
import { initReactI18next } from 'react-i18next'
import type { Language } from '../../../common/consent-view.ts'
import { catalogs } from '../../../common/i18n/index.ts'

/**
 * An i18next instance over the shared catalogs (the consent page reads the
 * same ones), so the workbench and the protected window word things alike.
 * Values are not escaped here: React renders them as text, never as markup.
 */
export function createWorkbenchI18n(lang: Language): i18n {
  const instance = i18next.createInstance()
  void instance.use(initReactI18next).init({
    lng: lang,
    fallbackLng: 'en',
    supportedLngs: ['en', 'zh-CN'],
    resources: {
      en: { translation: catalogs.en },
      'zh-CN': { translation: catalogs['zh-CN'] },
    },
    interpolation: { escapeValue: false },
    initAsync: false,
  })
  return instance
}
