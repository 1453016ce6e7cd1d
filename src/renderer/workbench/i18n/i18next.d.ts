import type { en } from '../../../common/i18n/en.ts'

// Typed keys: `t('workbench.card.deny')` is checked against the English
// catalog at compile time, and so is every key the zh-CN catalog must have.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation'
    resources: { translation: typeof en }
  }
}
