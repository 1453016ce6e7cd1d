import { render, type RenderResult } from '@testing-library/react'
import type { ReactElement } from 'react'
import { I18nextProvider } from 'react-i18next'
import type { Language } from '../../../common/consent-view.ts'
import { createWorkbenchI18n } from '../i18n/setup.ts'
import { installListLayout } from './list-layout.ts'

installListLayout()

/** Renders a workbench component with the real catalogs in `lang`. */
export function renderWithI18n(element: ReactElement, lang: Language = 'en'): RenderResult {
  return render(<I18nextProvider i18n={createWorkbenchI18n(lang)}>{element}</I18nextProvider>)
}
