import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { I18nextProvider } from 'react-i18next'
import type { AssentGui } from '../../common/assent-gui.ts'
import { App } from './app.tsx'
import { createWorkbenchI18n } from './i18n/setup.ts'
import {
  browserLanguages,
  effectivePreferences,
  localStore,
  readChoices,
  systemDark,
  systemLanguage,
} from './preferences.ts'
import './styles/theme.css'
import './styles/layout.css'
import './styles/timeline.css'
import './styles/card.css'
import './styles/requests.css'
import './styles/composer.css'
import './styles/shown-text.css'

declare global {
  interface Window {
    /** The workbench's only bridge to main (src/preload-workbench). */
    readonly assentGui: AssentGui
  }
}

const initial = effectivePreferences(readChoices(localStore()), {
  lang: systemLanguage(browserLanguages()),
  dark: systemDark(),
})
// Set before the first paint, so the page never flashes the other theme.
document.documentElement.lang = initial.lang
document.documentElement.dataset.theme = initial.theme

const root = document.getElementById('root')
if (root) {
  createRoot(root).render(
    <StrictMode>
      <I18nextProvider i18n={createWorkbenchI18n(initial.lang)}>
        <App gui={window.assentGui} />
      </I18nextProvider>
    </StrictMode>,
  )
}
