import { useTranslation } from 'react-i18next'

/**
 * Shown for as long as the app runs when main keeps the integrity key in a
 * plain file in the data folder (ASSENT_SECRET_STORE=file, or no keychain):
 * whoever can read the data folder could then forge what the key protects. Not
 * dismissable: the person chose a weaker store, and it stays weaker.
 */
export function KeyFileNotice({ shown }: { shown: boolean }) {
  const { t } = useTranslation()
  if (!shown) return null
  return (
    <section className="integrity" role="status" data-testid="key-file-notice">
      <h2 className="integrity__heading">{t('workbench.keyFile.heading')}</h2>
      <p>{t('workbench.keyFile.body')}</p>
    </section>
  )
}
