import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseConsentToken } from './consent-token.ts'
import {
  B64URL,
  SAMPLE_APPROVAL,
  anyBinding,
  expectGenuine,
  mint,
  nonceBytes,
  verifierAt,
  T0,
} from './test-support/consent-token-fixtures.ts'

/** The token grammar as documented (docs/architecture.md §5); the parser
 *  reads it by hand in one pass and must agree with it on every string. */
const GRAMMAR =
  /^v1\.([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{21}[AQgw])\.([A-Za-z0-9_-]{42}[AEIMQUYcgkosw048])$/

function byGrammar(text: string) {
  const match = GRAMMAR.exec(text)
  if (match === null || !Number.isSafeInteger(Number(match[1]))) return null
  return {
    expiresAtMs: Number(match[1]),
    nonce: match[2]!,
    signature: Buffer.from(match[3]!, 'base64url'),
  }
}

/** Characters that sit next to the grammar's: its own, their neighbours in
 *  ASCII, look-alikes, whitespace, and non-ASCII digits and letters. */
const nearChar = fc.oneof(
  fc.constantFrom(...B64URL),
  fc.constantFrom(
    '.',
    '0',
    '+',
    '/',
    '=',
    ' ',
    '\t',
    '\n',
    '\r',
    '\u0000',
    ',',
    '@',
    '[',
    '`',
    '{',
    ':',
    '\u00a0',
    '\u007f',
    '\u0080',
    '\u0660',
    '\uff10',
    '\u212a',
    '\u0130',
    'é',
    '\ud800',
    '\u{1d7ce}',
  ),
)

/** A genuine token changed in a few places: characters replaced, inserted
 *  or removed, or the expiry rewritten with other digits. */
const nearToken = fc
  .record({
    binding: anyBinding,
    random: nonceBytes,
    edits: fc.array(
      fc.record({
        kind: fc.constantFrom('replace', 'insert', 'delete'),
        at: fc.nat(),
        char: nearChar,
      }),
      { maxLength: 3 },
    ),
    expiry: fc.option(fc.stringMatching(/^[0-9]{0,18}$/), { freq: 4 }),
  })
  .map(({ binding, random, edits, expiry }) => {
    let text = mint(binding, { nonce: random })
    if (expiry !== null) text = text.replace(/^v1\.[0-9]+\./, `v1.${expiry}.`)
    for (const edit of edits) {
      const at = edit.at % (text.length + 1)
      if (edit.kind === 'replace') text = text.slice(0, at) + edit.char + text.slice(at + 1)
      if (edit.kind === 'insert') text = text.slice(0, at) + edit.char + text.slice(at)
      if (edit.kind === 'delete') text = text.slice(0, at) + text.slice(at + 1)
    }
    return text
  })

describe('the consent token grammar', () => {
  it('parses exactly the strings the documented grammar matches, into the same parts', () => {
    let parsed = 0
    let refused = 0
    fc.assert(
      fc.property(nearToken, (text) => {
        const expected = byGrammar(text)
        expect(parseConsentToken(text)).toEqual(expected)
        if (expected === null) refused += 1
        else parsed += 1
      }),
      { numRuns: 5_000 },
    )
    expect(parsed).toBeGreaterThan(500)
    expect(refused).toBeGreaterThan(500)
  })

  it('refuses, without burning anything, every string the grammar refuses', () => {
    fc.assert(
      fc.property(nearToken, (text) => {
        fc.pre(byGrammar(text) === null)
        const verifier = verifierAt(T0)
        expect(verifier.verify(text, SAMPLE_APPROVAL)).toBe(false)
        expect(verifier.ledgerSize).toBe(0)
      }),
      { numRuns: 1_000 },
    )
  })

  it('refuses a token with no expiry digits or more than sixteen', () => {
    const token = mint(SAMPLE_APPROVAL)
    const rest = token.slice(token.indexOf('.', 3))
    for (const expiry of ['', '00000000000000001', '10000000000000000']) {
      expect(parseConsentToken(`v1.${expiry}${rest}`), expiry).toBeNull()
    }
  })

  it('reads expiries up to the largest safe integer and not one past it', () => {
    const token = mint(SAMPLE_APPROVAL)
    const rest = token.slice(token.indexOf('.', 3))
    expect(parseConsentToken(`v1.9007199254740991${rest}`)?.expiresAtMs).toBe(2 ** 53 - 1)
    for (const expiry of ['9007199254740992', '9007199254740993', '9999999999999999']) {
      expect(parseConsentToken(`v1.${expiry}${rest}`), expiry).toBeNull()
    }
    expectGenuine(token, SAMPLE_APPROVAL)
  })
})
