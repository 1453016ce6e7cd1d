/** Reads of the consent page the rendering tests share. */
import { CONSENT_CLASSES, CONSENT_PAGE_IDS } from '../consent-page-ids.ts'
import { byId } from './consent-page-harness.ts'

export const text = (id: string) => byId(id).textContent
export const body = () => byId(CONSENT_PAGE_IDS.actionBody)
export const notices = () =>
  [...byId(CONSENT_PAGE_IDS.notices).querySelectorAll(`.${CONSENT_CLASSES.notice}`)].map(
    (notice) => notice.textContent,
  )
/** Every character a person could be shown on the page, escapes included. */
export const pageText = () => document.body.textContent ?? ''
