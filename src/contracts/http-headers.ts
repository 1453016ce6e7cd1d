/** Headers main sends with a decision; the runtime rebuilds the consent
 *  subject from them and the request. */
export const CONSENT_HEADER = 'x-assent-consent'
export const ACTION_DIGEST_HEADER = 'x-assent-action-digest'

/** Every header that carries consent. The runtime takes each exactly as it
 *  arrived: once, unpadded, in its grammar, or not at all. */
export const CONSENT_CARRYING_HEADERS = [CONSENT_HEADER, ACTION_DIGEST_HEADER] as const
export type ConsentCarryingHeader = (typeof CONSENT_CARRYING_HEADERS)[number]
