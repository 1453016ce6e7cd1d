/** Headers main sends with a decision; the runtime rebuilds the consent
 *  subject from them and the request. */
export const CONSENT_HEADER = 'x-assent-consent'
export const ACTION_DIGEST_HEADER = 'x-assent-action-digest'
