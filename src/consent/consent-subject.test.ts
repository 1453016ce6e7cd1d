import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../contracts/canonical-json.ts'
import {
  CLIENT_REQUEST_ID_MAX_LENGTH,
  WEBHOOK_URL_MAX_LENGTH,
  type ConsentKind,
} from '../contracts/consent.ts'
import { DOMAIN_TAG, signingPrefix } from './consent-subject.ts'
import {
  APPROVAL_FIELDS,
  ROOM_FIELDS,
  ROOM_FLAGS,
  WEBHOOK_FIELDS,
  SAMPLE_APPROVAL,
  SAMPLE_ROOM,
  schemaFor,
} from './test-support/consent-token-fixtures.ts'

const RUNS = { numRuns: 2_000 }

/** Values that sit on or just past an edge of some subject field's schema. */
const edgeValue = fc.oneof(
  fc.constantFrom<unknown>(
    '',
    ' ',
    'x'.repeat(128),
    'x'.repeat(129),
    '\u0000',
    '"',
    '\\',
    '\u2028',
    '\ud800',
    'a\udc00b',
    '\u{1f600}',
    'A'.repeat(64),
    'g'.repeat(64),
    `${'0'.repeat(63)}/`,
    `${'0'.repeat(63)}:`,
    `${'0'.repeat(63)}\``,
    `${'f'.repeat(63)}G`,
    '0'.repeat(63),
    '0'.repeat(65),
    `${'0'.repeat(64)}\n`,
    0,
    -0,
    -1,
    1.5,
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    10n,
    true,
    null,
    undefined,
    [],
    {},
    Object('allow-once'),
    'allow-once',
    'deny',
    'allow',
    'full-access',
    'Full-Access',
  ),
  fc.string({ unit: 'binary', maxLength: 140 }),
  fc.nat(),
  fc.anything(),
)

/** A subject object of one kind with some fields replaced, dropped or added,
 *  built in one of the ways an object can carry keys. `flags` are fields a
 *  valid subject may leave out and otherwise holds as `true`. */
function subjectArb(fields: Record<string, fc.Arbitrary<unknown>>, flags: readonly string[] = []) {
  const names = [...Object.keys(fields), ...flags]
  const flagValues = Object.fromEntries(flags.map((flag) => [flag, fc.constant<unknown>(true)]))
  return fc
    .record({
      valid: fc.record({ ...fields, ...flagValues }, { requiredKeys: Object.keys(fields) }),
      replaced: fc.dictionary(fc.constantFrom(...names), edgeValue, { maxKeys: 2 }),
      dropped: fc.subarray(names, { maxLength: 1 }),
      extra: fc.dictionary(fc.string({ maxLength: 6 }), edgeValue, { maxKeys: 1 }),
      shape: fc.constantFrom('plain', 'plain', 'plain', 'null-prototype', 'inherited', 'array'),
      mutate: fc.nat(9),
    })
    .map(({ valid, replaced, dropped, extra, shape, mutate }) => {
      // Most runs change nothing, so both outcomes are common.
      const own: Record<string, unknown> = { ...valid }
      if (mutate >= 5) Object.assign(own, replaced)
      if (mutate === 9) for (const name of dropped) delete own[name]
      if (mutate === 8) Object.assign(own, extra)
      if (shape === 'null-prototype') return Object.assign(Object.create(null) as object, own)
      if (shape === 'inherited' && mutate >= 7) {
        // Every field inherited, or one extra enumerable key inherited.
        return mutate === 7 ? Object.create(own) : Object.assign(Object.create({ extra: 1 }), own)
      }
      if (shape === 'array' && mutate === 6) return Object.assign([], own)
      return own
    })
}

/** The reference: the subject's schema, then the generic canonicaliser
 *  (which refuses strings RFC 8785 cannot write: lone surrogates). */
function referencePrefix(kind: ConsentKind, subject: unknown): string | undefined {
  const parsed = schemaFor(kind).safeParse(subject)
  if (!parsed.success) return undefined
  try {
    return `${DOMAIN_TAG}\n${kind}\n${canonicalJson(parsed.data)}\n`
  } catch {
    return undefined
  }
}

function expectSameAsSchemaAndJcs(kind: ConsentKind, subject: unknown) {
  const expected = referencePrefix(kind, subject)
  const prefix = signingPrefix({ kind, subject })
  if (expected === undefined) {
    expect(prefix).toEqual({
      reason: expect.stringContaining(`binding.subject is not a valid ${kind} subject`),
    })
    return false
  }
  expect(prefix).toBe(expected)
  return true
}

describe('signingPrefix: the subject checks and bytes, without zod on the hot path', () => {
  it.each([
    ['approval', APPROVAL_FIELDS, []],
    ['room-permission', ROOM_FIELDS, ROOM_FLAGS],
    ['approver-webhook', WEBHOOK_FIELDS, []],
  ] as const)(
    'accepts exactly what the %s schema accepts, and writes its RFC 8785 form',
    (kind, fields, flags) => {
      let accepted = 0
      let refused = 0
      fc.assert(
        fc.property(subjectArb(fields, flags), (subject) => {
          if (expectSameAsSchemaAndJcs(kind, subject)) accepted += 1
          else refused += 1
        }),
        RUNS,
      )
      // Neither outcome may pass vacuously.
      expect(accepted).toBeGreaterThan(RUNS.numRuns / 5)
      expect(refused).toBeGreaterThan(RUNS.numRuns / 5)
    },
  )

  it('agrees with the schema and the canonicaliser on any value at all', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<ConsentKind>('approval', 'room-permission', 'approver-webhook'),
        fc.anything(),
        (kind, subject) => {
          expectSameAsSchemaAndJcs(kind, subject)
        },
      ),
      RUNS,
    )
  })

  it('reads each subject field once, so a getter cannot show the check one value and the signature another', () => {
    let reads = 0
    const subject = { ...SAMPLE_APPROVAL.subject }
    Object.defineProperty(subject, 'approvalId', {
      enumerable: true,
      get: () => {
        reads += 1
        return reads === 1 ? 'appr-7' : ''
      },
    })
    expect(signingPrefix({ kind: 'approval', subject })).toBe(
      signingPrefix(SAMPLE_APPROVAL) as string,
    )
    expect(reads).toBe(1)
  })

  it.each([
    ['"'],
    ['\\'],
    ['a"b\\c'],
    ['\u0000'],
    ['\u001f'],
    [' '],
    ['~'],
    ['\u007f'],
    ['é'],
    ['\u2028'],
    ['\u{1f600}'],
  ])('writes an id holding %j exactly as the canonicaliser does', (id) => {
    const subject = {
      ...SAMPLE_ROOM.subject,
      roomId: id,
      clientRequestId: `c${id}`,
      instanceId: `${id}i`,
    }
    expect(signingPrefix({ kind: 'room-permission', subject })).toBe(
      `${DOMAIN_TAG}\nroom-permission\n${canonicalJson(subject)}\n`,
    )
  })

  it.each<[ConsentKind, string, unknown]>([
    ['approval', 'approvalId', ''],
    ['approval', 'decision', 'allow'],
    ['approval', 'actionDigest', 'A'.repeat(64)],
    ['approval', 'actionDigest', Array.from({ length: 64 }, () => 'a')],
    ['approval', 'instanceId', '\ud800'],
    ['room-permission', 'roomId', 7],
    ['room-permission', 'clientRequestId', 'c'.repeat(129)],
    ['room-permission', 'expectedRevision', -1],
    ['room-permission', 'mode', 'root'],
    ['room-permission', 'acceptsReplacedWorkspace', false],
    ['room-permission', 'resealsRoom', undefined],
    ['room-permission', 'instanceId', ''],
  ])('names the %s subject field %s when it is wrong', (kind, field, value) => {
    const subject = {
      ...(kind === 'approval' ? SAMPLE_APPROVAL : SAMPLE_ROOM).subject,
      [field]: value,
    }
    expect(signingPrefix({ kind, subject })).toEqual({
      reason: expect.stringMatching(
        new RegExp(`^binding\\.subject is not a valid ${kind} subject: ${field} `),
      ),
    })
  })

  const SAMPLE_WEBHOOK_SUBJECT = {
    roomId: 'room-1',
    clientRequestId: 'req-1',
    url: 'https://hooks.example/approve',
    instanceId: 'inst-1',
  }

  it.each<[string, unknown]>([
    ['roomId', 7],
    ['clientRequestId', 'c'.repeat(CLIENT_REQUEST_ID_MAX_LENGTH + 1)],
    ['url', ''],
    ['url', `https://h.example/${'u'.repeat(WEBHOOK_URL_MAX_LENGTH)}`],
    ['instanceId', ''],
  ])('names the approver-webhook subject field %s when it is wrong', (field, value) => {
    const subject = { ...SAMPLE_WEBHOOK_SUBJECT, [field]: value }
    expect(signingPrefix({ kind: 'approver-webhook', subject })).toEqual({
      reason: expect.stringMatching(
        new RegExp(`^binding\\.subject is not a valid approver-webhook subject: ${field} \\S`),
      ),
    })
  })

  it.each<[ConsentKind, Record<string, unknown>]>([
    ['room-permission', SAMPLE_ROOM.subject],
    ['approver-webhook', SAMPLE_WEBHOOK_SUBJECT],
  ])(
    'binds a %s clientRequestId of exactly the longest length, and refuses one unit more',
    (kind, sample) => {
      const longest = 'c'.repeat(CLIENT_REQUEST_ID_MAX_LENGTH)
      const subject = { ...sample, clientRequestId: longest }
      expect(signingPrefix({ kind, subject })).toBe(
        `${DOMAIN_TAG}\n${kind}\n${canonicalJson(subject)}\n`,
      )
      expect(
        signingPrefix({ kind, subject: { ...sample, clientRequestId: `${longest}c` } }),
      ).toEqual({ reason: expect.stringContaining(`subject: clientRequestId must be`) })
    },
  )

  it.each([
    [{}],
    [{ acceptsReplacedWorkspace: true }],
    [{ resealsRoom: true }],
    [{ acceptsReplacedWorkspace: true, resealsRoom: true }],
  ])('writes the room flags %j in their keys’ places, as the canonicaliser does', (flags) => {
    const subject = { ...SAMPLE_ROOM.subject, ...flags }
    const prefix = signingPrefix({ kind: 'room-permission', subject })
    expect(prefix).toBe(`${DOMAIN_TAG}\nroom-permission\n${canonicalJson(subject)}\n`)
    // Each flag changes the bytes signed: a token with it never verifies without it.
    if (Object.keys(flags).length > 0) {
      expect(prefix).not.toBe(signingPrefix(SAMPLE_ROOM))
    }
  })

  it('binds a webhook url of exactly the longest length, or null, and refuses one unit more', () => {
    const longest = `https://h.example/${'u'.repeat(WEBHOOK_URL_MAX_LENGTH - 18)}`
    expect(longest).toHaveLength(WEBHOOK_URL_MAX_LENGTH)
    for (const url of [longest, null]) {
      const subject = { ...SAMPLE_WEBHOOK_SUBJECT, url }
      expect(signingPrefix({ kind: 'approver-webhook', subject })).toBe(
        `${DOMAIN_TAG}\napprover-webhook\n${canonicalJson(subject)}\n`,
      )
    }
    const subject = { ...SAMPLE_WEBHOOK_SUBJECT, url: `${longest}u` }
    expect(signingPrefix({ kind: 'approver-webhook', subject })).toEqual({
      reason: expect.stringContaining('subject: url must be null or'),
    })
  })

  it.each(['/', ':', '`', 'g', 'G', 'A', 'F'])(
    'refuses an action digest holding %j, next to a hex digit in the character table',
    (char) => {
      const actionDigest = `${'0'.repeat(63)}${char}`
      const subject = { ...SAMPLE_APPROVAL.subject, actionDigest }
      expect(signingPrefix({ kind: 'approval', subject })).toEqual({
        reason: expect.stringContaining('subject: actionDigest must be'),
      })
    },
  )

  it.each([63, 65])('refuses an action digest of %i hex digits', (length) => {
    const subject = { ...SAMPLE_APPROVAL.subject, actionDigest: 'a'.repeat(length) }
    expect(signingPrefix({ kind: 'approval', subject })).toEqual({
      reason: expect.stringContaining('subject: actionDigest must be'),
    })
  })

  it('binds an action digest made of every edge hex digit: 0, 9, a and f', () => {
    const actionDigest = '09af'.repeat(16)
    const subject = { ...SAMPLE_APPROVAL.subject, actionDigest }
    expect(signingPrefix({ kind: 'approval', subject })).toBe(
      `${DOMAIN_TAG}\napproval\n${canonicalJson(subject)}\n`,
    )
  })

  it('names an unknown subject field', () => {
    const subject = { ...SAMPLE_APPROVAL.subject, approvedBy: 'user' }
    expect(signingPrefix({ kind: 'approval', subject })).toEqual({
      reason: 'binding.subject is not a valid approval subject: unknown field "approvedBy"',
    })
  })

  it.each([
    [null, 'binding must be an object'],
    ['approval', 'binding must be an object'],
    [{ kind: 'tool', subject: SAMPLE_APPROVAL.subject }, 'binding.kind must be'],
    [{ subject: SAMPLE_ROOM.subject }, 'binding.kind must be'],
    [{ kind: 'approval', subject: SAMPLE_ROOM.subject }, 'not a valid approval subject'],
    [{ kind: 'room-permission', subject: SAMPLE_APPROVAL.subject }, 'not a valid room-permission'],
    [{ kind: 'approval', subject: 'appr-7' }, 'the subject must be an object'],
  ])('refuses %j and says why', (binding, reason) => {
    const prefix = signingPrefix(binding)
    expect(prefix).toEqual({ reason: expect.stringContaining(reason) })
  })
})
