import { describe, expect, it } from 'vitest'
import {
  answerProof,
  gatewayLinkKeys,
  isGatewayNonce,
  isProvenAnswer,
  newGatewayNonce,
  type GatewayAnswer,
} from './gateway-answer-proof.ts'

const CREDENTIAL = 'gateway-credential-for-the-test-0123456789'
const KEYS = gatewayLinkKeys(CREDENTIAL)
const ANSWER: GatewayAnswer = {
  nonce: newGatewayNonce(),
  method: 'POST',
  path: '/v1/gateway/calls',
  status: 201,
  body: '{"status":"pending"}',
}

describe('the proof of an answer to the gateway', () => {
  it('holds for the answer it was made for', () => {
    expect(isProvenAnswer(KEYS.responseKey, ANSWER, answerProof(KEYS.responseKey, ANSWER))).toBe(
      true,
    )
  })

  it.each<[string, Partial<GatewayAnswer>]>([
    ['another request’s nonce', { nonce: newGatewayNonce() }],
    ['another method', { method: 'GET' }],
    ['another path', { path: '/v1/gateway/calls/call_1' }],
    ['another status', { status: 200 }],
    ['another body', { body: '{"status":"allowed"}' }],
  ])('fails for %s', (_what, change) => {
    const proof = answerProof(KEYS.responseKey, ANSWER)
    expect(isProvenAnswer(KEYS.responseKey, { ...ANSWER, ...change }, proof)).toBe(false)
  })

  it('cannot be made from what the gateway sends (the request key) or a guess', () => {
    expect(KEYS.requestKey).not.toBe(CREDENTIAL)
    const guesses = [
      Buffer.from(KEYS.requestKey),
      Buffer.from(KEYS.requestKey, 'base64url'),
      gatewayLinkKeys(KEYS.requestKey).responseKey,
      Buffer.alloc(32),
    ]
    for (const key of guesses) {
      expect(isProvenAnswer(KEYS.responseKey, ANSWER, answerProof(key, ANSWER))).toBe(false)
    }
  })

  it('is nothing when absent, repeated or padded', () => {
    const proof = answerProof(KEYS.responseKey, ANSWER)
    for (const presented of [undefined, '', `${proof}, ${proof}`, `${proof}=`, ` ${proof}`]) {
      expect(isProvenAnswer(KEYS.responseKey, ANSWER, presented)).toBe(false)
    }
  })

  it('derives keys of another runtime start from its own credential', () => {
    const other = gatewayLinkKeys(`${CREDENTIAL}x`)
    expect(other.requestKey).not.toBe(KEYS.requestKey)
    expect(other.responseKey.equals(KEYS.responseKey)).toBe(false)
    expect(isGatewayNonce(newGatewayNonce())).toBe(true)
    expect(isGatewayNonce('short')).toBe(false)
  })
})
