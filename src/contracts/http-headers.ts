/** Headers main sends with a decision; the runtime rebuilds the consent
 *  subject from them and the request. */
export const CONSENT_HEADER = 'x-assent-consent'
export const ACTION_DIGEST_HEADER = 'x-assent-action-digest'

/** Every header that carries consent. The runtime takes each exactly as it
 *  arrived: once, unpadded, in its grammar, or not at all. */
export const CONSENT_CARRYING_HEADERS = [CONSENT_HEADER, ACTION_DIGEST_HEADER] as const
export type ConsentCarryingHeader = (typeof CONSENT_CARRYING_HEADERS)[number]

/** A fresh random value the MCP gateway sends with every request to the
 *  runtime; the runtime's answer is proven over it, so no answer can be
 *  replayed to another request. */
export const GATEWAY_NONCE_HEADER = 'x-assent-gateway-nonce'
/** The runtime's proof of an answer to the MCP gateway
 *  (src/runtime/mcp/gateway-answer-proof.ts). */
export const RUNTIME_PROOF_HEADER = 'x-assent-runtime-proof'
