import { randomBytes, randomInt, randomUUID } from 'node:crypto'
import fc from 'fast-check'
import type { z } from 'zod'
import { ACTION_DIGEST_HEADER, CONSENT_HEADER } from '../../src/contracts/http-headers.ts'
import { mintConsentToken } from '../../src/consent/consent-token.ts'
import { ApprovalDecisionRequestSchema } from '../../src/contracts/approval.ts'
import type { ApprovalDecision } from '../../src/contracts/consent.ts'
import { InputResponseSchema } from '../../src/contracts/input-request.ts'
import type { PermissionMode } from '../../src/contracts/policy-axes.ts'
import {
  CreateRoomRequestSchema,
  PermissionChangeRequestSchema,
  ReconcileRequestSchema,
  SendMessageRequestSchema,
} from '../../src/contracts/room.ts'
import { MAX_BODY_BYTES } from '../../src/runtime/server/http-kit.ts'
import { RUNTIME_ROUTE_TABLE } from '../../src/runtime/server/route-table.ts'

/**
 * Generators for the HTTP fuzz test (tests/fuzz-http.test.ts): requests to
 * every route of `RUNTIME_ROUTE_TABLE` with adversarial paths, methods,
 * headers, bodies and consent tokens, plus raw byte streams for framing
 * `node:http` will not produce.
 *
 * One rule keeps the test's store check meaningful: no generated request is
 * one the runtime should accept as a change. Every request that is not a GET
 * carries at least one defect (a schema-invalid body, a missing or forged
 * consent, an unknown target, a wrong edge header...), so any 2xx to a
 * non-GET and any change of the store is a finding, never noise.
 */

export interface FuzzTargets {
  port: number
  bearerToken: string
  consentKey: Buffer
  instanceId: string
  /** A direct room with one pending approval (its turn waiting on it). */
  roomId: string
  /** A group room: its direct-permission routes answer 409. */
  groupRoomId: string
  approvalId: string
  actionDigest: string
  turnId: string
  toolCallId: string
}

export interface HttpFuzzCase {
  transport: 'http'
  /** The route pattern the case was built from, for per-route tallies. */
  route: string
  method: string
  path: string
  headers: Array<[string, string]>
  body?: Buffer
  /** The exact status when the answer does not depend on the route: the
   *  edge (Host, browser headers, bearer) or the HTTP parser decides. */
  expectStatus?: number
  /** What the case tries, for failure messages. */
  attack: string
  /** The server may close before the client finished writing (a body or
   *  header over the limit), so a reset instead of a response is allowed. */
  mayReset: boolean
}

export interface RawFuzzCase {
  transport: 'raw'
  route: string
  attack: string
  bytes: Buffer
  /** The method of each request in `bytes`, in order (HEAD has no body). */
  methods: string[]
  /** The connection may close without an answer, which is a refusal and not
   *  a hang: CONNECT (Node closes when no one listens for tunnels) and body
   *  framing errors found after the route already started answering. */
  allowNoResponse: boolean
}

export type FuzzCase = HttpFuzzCase | RawFuzzCase

type Route = (typeof RUNTIME_ROUTE_TABLE)[number]

const BODY_SCHEMAS: Record<string, z.ZodType | undefined> = {
  'POST /v1/approvals/:approvalId': ApprovalDecisionRequestSchema,
  'POST /v1/rooms': CreateRoomRequestSchema,
  'POST /v1/rooms/:roomId/messages': SendMessageRequestSchema,
  'PUT /v1/rooms/:roomId/direct/permissions': PermissionChangeRequestSchema,
  'POST /v1/executions/:executionId/reconcile': ReconcileRequestSchema,
  'POST /v1/input-requests/:requestId/response': InputResponseSchema,
  'POST /v1/input-requests/:requestId/protected-response': InputResponseSchema,
}

const routeKey = (route: { method: string; pattern: string }) => `${route.method} ${route.pattern}`

/** Header names the generator sets on purpose; random extra headers avoid
 *  them so a random header never repairs or spoils a deliberate choice. */
const MEANINGFUL_HEADERS = new Set([
  'host',
  'authorization',
  'origin',
  'sec-fetch-site',
  'sec-fetch-dest',
  'sec-fetch-mode',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'expect',
  'upgrade',
  'last-event-id',
  CONSENT_HEADER,
  ACTION_DIGEST_HEADER,
  'te',
  'trailer',
  'keep-alive',
  'proxy-connection',
])

// --- ids and paths -----------------------------------------------------------

const validIdArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/)
const overlongIdArb = fc.integer({ min: 129, max: 600 }).map((length) => 'a'.repeat(length))
/** Values that name something else once decoded or normalised, or cannot be
 *  an id at all. */
const hostileIdArb = fc.constantFrom(
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e%2e%2f%2e%2e',
  '..%2f..%2fv1%2faudit%2fexport',
  '%2fv1%2faudit%2fexport',
  '..%5c..%5c',
  '%00',
  'a%00b',
  '%25',
  '%zz',
  'a%20b',
  '%c0%ae%c0%ae',
  '%e2%80%ae',
  '%ef%bc%8e%ef%bc%8e',
  'room;a=b',
  'room,other',
  '*',
  '~',
  'CON',
  'null',
  'undefined',
  '__proto__',
  'constructor',
)
/** Unicode, percent-encoded so `node:http` sends it (raw UTF-8 goes through
 *  the raw-socket cases). */
const unicodeIdArb = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
  .map((text) => encodeURIComponent(text))
const lookalikeIdArb = fc
  .constantFrom('ⅰd', 'іd', 'ｉｄ', 'i\u0307d', 'ı', 'ß', 'ﬁ', '\u200bid', 'id\u202e')
  .map((text) => encodeURIComponent(text))

function idArb(seeded: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(seeded) },
    { weight: 3, arbitrary: validIdArb },
    { weight: 2, arbitrary: hostileIdArb },
    { weight: 1, arbitrary: overlongIdArb },
    { weight: 1, arbitrary: unicodeIdArb },
    { weight: 1, arbitrary: lookalikeIdArb },
  )
}

function seededIdFor(param: string, targets: FuzzTargets): string {
  switch (param) {
    case 'approvalId':
      return targets.approvalId
    case 'roomId':
      return targets.roomId
    case 'turnId':
      return targets.turnId
    case 'executionId':
      return targets.toolCallId
    default:
      // grants: none exist, so no seeded grant id can be hit.
      return randomUUID()
  }
}

/** A concrete path for `pattern`, each `:param` replaced by a generated id;
 *  the room id sometimes names the group room instead. */
function concretePathArb(pattern: string, targets: FuzzTargets): fc.Arbitrary<string> {
  const parts = pattern.split('/')
  return fc
    .tuple(
      ...parts.map((part) => {
        if (!part.startsWith(':')) return fc.constant(part)
        const name = part.slice(1)
        if (name === 'roomId') {
          return fc.oneof(
            { weight: 5, arbitrary: idArb(targets.roomId) },
            { weight: 1, arbitrary: fc.constant(targets.groupRoomId) },
          )
        }
        return idArb(seededIdFor(name, targets))
      }),
    )
    .map((segments) => segments.join('/'))
}

/** Spellings of a path that mean the same route, or a neighbouring one. */
const pathVariantArb = fc.constantFrom(
  'none',
  'none',
  'none',
  'none',
  'trailing-slash',
  'double-slash',
  'dot-segment',
  'dot-dot-segment',
  'encoded-dot-dot',
  'query',
  'empty-query',
  'upper-case',
  'encoded-letter',
  'backslash',
)

function applyPathVariant(path: string, variant: string): string {
  switch (variant) {
    case 'trailing-slash':
      return `${path}/`
    case 'double-slash':
      return path.replace('/v1/', '/v1//')
    case 'dot-segment':
      return path.replace('/v1/', '/v1/./')
    case 'dot-dot-segment':
      return path.replace('/v1/', '/v1/x/../')
    case 'encoded-dot-dot':
      return path.replace('/v1/', '/v1/x/%2e%2e/')
    case 'query':
      return `${path}?token=1&debug=true`
    case 'empty-query':
      return `${path}?`
    case 'upper-case':
      return path.toUpperCase()
    case 'encoded-letter':
      return path.replace('/v1/', '/%76%31/')
    case 'backslash':
      return path.replace('/v1/', '/v1\\')
    default:
      return path
  }
}

// --- edge headers ------------------------------------------------------------

type HostChoice = 'ok' | 'missing' | 'wrong' | 'duplicate'
type BrowserChoice = 'none' | 'origin' | 'same-origin' | 'null-origin' | 'fetch-site' | 'fetch-dest'
type AuthChoice =
  | 'ok'
  | 'missing'
  | 'wrong'
  | 'lower-scheme'
  | 'double-space'
  | 'suffix'
  | 'prefix'
  | 'duplicate-same'
  | 'duplicate-other'
  | 'basic'
  | 'bare-token'
  | 'empty'

interface EdgePlan {
  host: HostChoice
  wrongHost: string
  browser: BrowserChoice
  auth: AuthChoice
}

const edgePlanArb: fc.Arbitrary<EdgePlan> = fc.record({
  host: fc.oneof(
    { weight: 20, arbitrary: fc.constant<HostChoice>('ok') },
    { weight: 1, arbitrary: fc.constantFrom<HostChoice>('missing', 'wrong', 'duplicate') },
  ),
  wrongHost: fc.constantFrom(
    'localhost:PORT',
    'LOCALHOST:PORT',
    '127.0.0.1',
    '127.0.0.1:OTHER',
    'rebind.test:PORT',
    'evil.example',
    '[::1]:PORT',
    '127.0.0.1.:PORT',
    '127.1:PORT',
    '0x7f.0.0.1:PORT',
    '2130706433:PORT',
    '127.0.0.1:0PORT',
    '127.0.0.1:PORT@evil.example',
    '',
  ),
  browser: fc.oneof(
    { weight: 20, arbitrary: fc.constant<BrowserChoice>('none') },
    {
      weight: 1,
      arbitrary: fc.constantFrom<BrowserChoice>(
        'origin',
        'same-origin',
        'null-origin',
        'fetch-site',
        'fetch-dest',
      ),
    },
  ),
  auth: fc.oneof(
    { weight: 12, arbitrary: fc.constant<AuthChoice>('ok') },
    {
      weight: 2,
      arbitrary: fc.constantFrom<AuthChoice>(
        'missing',
        'wrong',
        'lower-scheme',
        'double-space',
        'suffix',
        'prefix',
        'duplicate-same',
        'duplicate-other',
        'basic',
        'bare-token',
        'empty',
      ),
    },
  ),
})

function edgeHeaders(plan: EdgePlan, targets: FuzzTargets): Array<[string, string]> {
  const headers: Array<[string, string]> = []
  const goodHost = `127.0.0.1:${targets.port}`
  if (plan.host === 'ok') headers.push(['Host', goodHost])
  if (plan.host === 'duplicate') headers.push(['Host', goodHost], ['Host', goodHost])
  if (plan.host === 'wrong') {
    headers.push([
      'Host',
      plan.wrongHost
        .replace('OTHER', String(targets.port === 65_535 ? 1 : targets.port + 1))
        .replace('PORT', String(targets.port)),
    ])
  }
  if (plan.browser === 'origin') headers.push(['Origin', 'http://evil.example'])
  if (plan.browser === 'same-origin') headers.push(['Origin', `http://${goodHost}`])
  if (plan.browser === 'null-origin') headers.push(['Origin', 'null'])
  if (plan.browser === 'fetch-site') headers.push(['Sec-Fetch-Site', 'cross-site'])
  if (plan.browser === 'fetch-dest') headers.push(['Sec-Fetch-Dest', 'empty'])
  const token = targets.bearerToken
  const auth: Record<AuthChoice, Array<string>> = {
    ok: [`Bearer ${token}`],
    missing: [],
    wrong: [`Bearer ${randomBytes(32).toString('base64url')}`],
    'lower-scheme': [`bearer ${token}`],
    'double-space': [`Bearer  ${token}`],
    suffix: [`Bearer ${token}x`],
    prefix: [`Bearer ${token.slice(0, -1)}`],
    'duplicate-same': [`Bearer ${token}`, `Bearer ${token}`],
    'duplicate-other': [`Bearer ${token}`, `Bearer ${randomBytes(32).toString('base64url')}`],
    basic: [`Basic ${Buffer.from(`user:${token}`).toString('base64')}`],
    'bare-token': [token],
    empty: [''],
  }
  for (const value of auth[plan.auth]) headers.push(['Authorization', value])
  return headers
}

/** The status the edge must answer, whatever the route, or undefined when
 *  the edge lets the request through. Order matches `requestEdgeCheck`. */
function edgeStatus(plan: EdgePlan): number | undefined {
  // Node's own parser refuses an HTTP/1.1 request without Host before the
  // runtime sees it.
  if (plan.host === 'missing') return 400
  if (plan.host !== 'ok') return 421
  if (plan.browser !== 'none') return 403
  if (plan.auth !== 'ok') return 401
  return undefined
}

const extraHeadersArb = fc.array(
  fc.tuple(
    fc
      .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,30}$/)
      .filter((name) => !MEANINGFUL_HEADERS.has(name.toLowerCase())),
    fc.stringMatching(/^[\x21-\x7e]{0,80}$/),
  ),
  { maxLength: 3 },
)

// --- bodies ------------------------------------------------------------------

type BodyPlan =
  | { kind: 'none' }
  | { kind: 'json-invalid-for-schema'; value: unknown }
  | { kind: 'near-valid'; value: unknown }
  | { kind: 'schema-valid'; value: unknown }
  | { kind: 'not-json'; text: string }
  | { kind: 'bad-utf8'; bytes: Buffer }
  | { kind: 'oversize'; extra: number }
  | { kind: 'deep'; depth: number }
  | { kind: 'empty' }

const notJsonArb = fc
  .oneof(
    fc.constantFrom(
      '{',
      '}',
      "{'decision':'deny'}",
      '{"decision":"deny",}',
      '{"decision":"deny"}}',
      'NaN',
      'undefined',
      '{"a":1}{"b":2}',
      '\u0000',
      '\ufeff{"decision":"deny"}',
      '{"decision":"deny"} trailing',
    ),
    fc.string({ maxLength: 40 }),
  )
  .filter((text) => {
    try {
      JSON.parse(text)
      return false
    } catch {
      return true
    }
  })

const badUtf8Arb = fc.constantFrom(
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x64, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d]),
)

/** A body the route's schema accepts. For the two routes where such a body
 *  alone would change the store it names what does not exist: creating a
 *  room gets an unknown agent or a workspace that is not a directory, and
 *  the messages route gets it only for a room that does not exist (see
 *  `routeCaseArb`). */
function schemaValidBodyArb(key: string): fc.Arbitrary<unknown> {
  const decision = fc.constantFrom<ApprovalDecision>('allow-once', 'allow-always', 'deny')
  const mode = fc.constantFrom<PermissionMode>('ask-for-approval', 'approve-for-me', 'full-access')
  switch (key) {
    case 'POST /v1/approvals/:approvalId':
      return fc.record({ decision })
    case 'POST /v1/rooms':
      return fc.oneof(
        fc.record({
          kind: fc.constantFrom('direct', 'group'),
          agentId: fc.constantFrom('nobody', 'root', 'ASSISTANT', 'assistant ', '../assistant'),
          workspace: fc.constant('/'),
          title: fc.constant('fuzz'),
        }),
        fc.record({
          kind: fc.constantFrom('direct', 'group'),
          agentId: fc.constant('assistant'),
          workspace: fc.constantFrom(
            `/nonexistent-${randomUUID()}`,
            'relative/workspace',
            '.',
            '~',
            `/proc/self/fd/0/${randomUUID()}`,
            `/etc/hostname`,
          ),
          title: fc.constant('fuzz'),
        }),
      )
    case 'POST /v1/rooms/:roomId/messages':
      return fc.record({ clientRequestId: validIdArb, text: fc.constant('write fuzz.txt x') })
    case 'PUT /v1/rooms/:roomId/direct/permissions':
      return fc.record({
        clientRequestId: validIdArb,
        expectedRevision: fc.nat({ max: 3 }),
        mode,
      })
    case 'POST /v1/executions/:executionId/reconcile':
      return fc.record(
        { outcome: fc.constantFrom('succeeded', 'failed', 'not-run'), note: fc.string() },
        { requiredKeys: ['outcome'] },
      )
    case 'POST /v1/input-requests/:requestId/response':
    case 'POST /v1/input-requests/:requestId/protected-response':
      return fc.oneof(
        fc.constantFrom({ action: 'dismiss' }, { action: 'decline' }, { action: 'auto-resolve' }),
        fc.record({
          action: fc.constant('answer'),
          answers: fc.constant([{ questionId: 'q1', text: 'x' }]),
        }),
      )
    default:
      return fc.constant({})
  }
}

/** One edit that makes a valid body invalid: an unknown key, a missing
 *  field, a wrong type, prototype keys, oversized values. */
function nearValidArb(key: string): fc.Arbitrary<unknown> {
  const schema = BODY_SCHEMAS[key]
  return fc
    .tuple(
      schemaValidBodyArb(key),
      fc.constantFrom(
        'extra-key',
        'proto-key',
        'constructor-key',
        'drop-key',
        'null-value',
        'number-value',
        'array-value',
        'object-value',
        'huge-string',
        'empty-string',
        'as-array',
        'wrapped',
      ),
      fc.stringMatching(/^[a-zA-Z_$][a-zA-Z0-9_$]{0,10}$/),
    )
    .map(([valid, edit, extraName]) => {
      const body = { ...(valid as Record<string, unknown>) }
      const keys = Object.keys(body)
      const first = keys[0]
      switch (edit) {
        case 'extra-key':
          return { ...body, [`${extraName}_x`]: true }
        case 'proto-key':
          // JSON.parse makes `__proto__` an own key, as a hostile body would.
          return JSON.parse(
            `{"__proto__":{"decision":"allow-always"}${keys.length > 0 ? ',' : ''}${JSON.stringify(body).slice(1)}`,
          ) as unknown
        case 'constructor-key':
          return { ...body, constructor: { prototype: { isAdmin: true } } }
        case 'drop-key':
          if (first !== undefined) delete body[first]
          return body
        case 'null-value':
          return first === undefined ? null : { ...body, [first]: null }
        case 'number-value':
          return first === undefined ? 1 : { ...body, [first]: Number.MAX_VALUE }
        case 'array-value':
          return first === undefined ? [] : { ...body, [first]: [body[first]] }
        case 'object-value':
          return first === undefined ? { a: 1 } : { ...body, [first]: { value: body[first] } }
        case 'huge-string':
          return first === undefined ? 'x' : { ...body, [first]: 'x'.repeat(40_000) }
        case 'empty-string':
          return first === undefined ? '' : { ...body, [first]: '' }
        case 'as-array':
          return [body]
        default:
          return { body }
      }
    })
    .filter((value) => schema === undefined || !schema.safeParse(value).success)
}

function bodyPlanArb(key: string): fc.Arbitrary<BodyPlan> {
  const schema = BODY_SCHEMAS[key]
  const jsonInvalidForSchema = fc
    .jsonValue({ maxDepth: 3 })
    .filter((value) => schema === undefined || !schema.safeParse(value).success)
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant<BodyPlan>({ kind: 'none' }) },
    {
      weight: 4,
      arbitrary: jsonInvalidForSchema.map<BodyPlan>((value) => ({
        kind: 'json-invalid-for-schema',
        value,
      })),
    },
    {
      weight: 5,
      arbitrary: nearValidArb(key).map<BodyPlan>((value) => ({
        kind: 'near-valid',
        value,
      })),
    },
    {
      weight: 4,
      arbitrary: schemaValidBodyArb(key).map<BodyPlan>((value) => ({
        kind: 'schema-valid',
        value,
      })),
    },
    { weight: 2, arbitrary: notJsonArb.map<BodyPlan>((text) => ({ kind: 'not-json', text })) },
    { weight: 1, arbitrary: badUtf8Arb.map<BodyPlan>((bytes) => ({ kind: 'bad-utf8', bytes })) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 4096 }).map<BodyPlan>((extra) => ({
        kind: 'oversize',
        extra,
      })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1_000, max: 30_000 }).map<BodyPlan>((depth) => ({
        kind: 'deep',
        depth,
      })),
    },
    { weight: 1, arbitrary: fc.constant<BodyPlan>({ kind: 'empty' }) },
  )
}

function bodyBytes(plan: BodyPlan): Buffer | undefined {
  switch (plan.kind) {
    case 'none':
      return undefined
    case 'json-invalid-for-schema':
    case 'near-valid':
    case 'schema-valid':
      return Buffer.from(JSON.stringify(plan.value) ?? 'null', 'utf8')
    case 'not-json':
      return Buffer.from(plan.text, 'utf8')
    case 'bad-utf8':
      return plan.bytes
    case 'oversize':
      return Buffer.from(
        JSON.stringify({ decision: 'deny', pad: 'x'.repeat(MAX_BODY_BYTES + plan.extra) }),
      )
    case 'deep':
      return Buffer.from(`${'['.repeat(plan.depth)}${']'.repeat(plan.depth)}`)
    case 'empty':
      return Buffer.alloc(0)
  }
}

type ContentTypeChoice = 'json' | 'json-utf8' | 'json-upper' | 'defect' | 'missing'

const contentTypeArb = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom<ContentTypeChoice>('json', 'json-utf8', 'json-upper') },
  { weight: 2, arbitrary: fc.constantFrom<ContentTypeChoice>('defect', 'missing') },
)
const contentTypeDefectArb = fc.constantFrom(
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json, text/plain',
  'application/jsonx',
  'application/json;;',
  'json',
  '',
)

function contentTypeHeader(choice: ContentTypeChoice, defect: string): string | undefined {
  if (choice === 'json') return 'application/json'
  if (choice === 'json-utf8') return 'application/json; charset=utf-8'
  if (choice === 'json-upper') return 'APPLICATION/JSON; CHARSET=UTF-8'
  if (choice === 'defect') return defect
  return undefined
}

// --- consent -----------------------------------------------------------------

type ApprovalConsentPlan =
  | 'none'
  | 'garbage'
  | 'well-formed-random'
  | 'other-decision'
  | 'bound-to-wrong-digest'
  | 'header-digest-mismatch'
  | 'other-approval'
  | 'other-instance'
  | 'other-key'
  | 'expired'
  | 'too-far-ahead'
  | 'duplicate-token'
  | 'duplicate-digest'
  | 'no-digest'
  | 'room-permission-kind'
  | 'padded-token'
  | 'padded-digest'
  | 'comma-joined-token'
  | 'upper-case-digest'

const approvalConsentArb = fc.constantFrom<ApprovalConsentPlan>(
  'none',
  'garbage',
  'well-formed-random',
  'other-decision',
  'bound-to-wrong-digest',
  'header-digest-mismatch',
  'other-approval',
  'other-instance',
  'other-key',
  'expired',
  'too-far-ahead',
  'duplicate-token',
  'duplicate-digest',
  'no-digest',
  'room-permission-kind',
  'padded-token',
  'padded-digest',
  'comma-joined-token',
  'upper-case-digest',
)

type PermissionConsentPlan =
  | 'none'
  | 'garbage'
  | 'other-room'
  | 'other-client-request'
  | 'other-revision'
  | 'other-mode'
  | 'other-instance'
  | 'other-key'
  | 'expired'
  | 'duplicate-token'
  | 'approval-kind'
  | 'padded-token'
  | 'comma-joined-token'

const permissionConsentArb = fc.constantFrom<PermissionConsentPlan>(
  'none',
  'garbage',
  'other-room',
  'other-client-request',
  'other-revision',
  'other-mode',
  'other-instance',
  'other-key',
  'expired',
  'duplicate-token',
  'approval-kind',
  'padded-token',
  'comma-joined-token',
)

/** Minted this far ahead, a token expires more than the verifier's 60 s skew
 *  ahead of its clock for the next ten minutes: long after the batch that
 *  carries it was sent, however slow the machine. */
const TOO_FAR_AHEAD_MS = 10 * 60_000

const DECISIONS: ApprovalDecision[] = ['allow-once', 'allow-always', 'deny']
const MODES: PermissionMode[] = ['ask-for-approval', 'approve-for-me', 'full-access']

const randomDigest = () => randomBytes(32).toString('hex')
/** Spaces and tabs around a header value, never the exact `name: value`:
 *  Node's parser trims them, and the runtime must still refuse them. */
const PADDINGS: Array<[string, string]> = [
  [' ', ''],
  ['', ' '],
  ['\t', ''],
  ['', '\t'],
  [' \t', ' '],
]
function padded(value: string): string {
  const [before, after] = PADDINGS[randomInt(PADDINGS.length)]!
  return `${before}${value}${after}`
}
const wellFormedRandomToken = () =>
  `v1.${Date.now() + 20_000}.${randomBytes(16).toString('base64url')}.${randomBytes(32).toString('base64url')}`

function mint(
  targets: FuzzTargets,
  grant: Parameters<typeof mintConsentToken>[0]['binding'],
  options: { now?: number; key?: Buffer } = {},
): string {
  return mintConsentToken({
    key: options.key ?? targets.consentKey,
    now: options.now ?? Date.now(),
    binding: grant,
  })
}

/** Consent headers for `decision` on the seeded approval, forged one way.
 *  None of them is a valid (token, digest, body) triple. */
function approvalConsentHeaders(
  plan: ApprovalConsentPlan,
  decision: ApprovalDecision,
  targets: FuzzTargets,
): Array<[string, string]> {
  const digest = targets.actionDigest
  const subject = {
    approvalId: targets.approvalId,
    decision,
    actionDigest: digest,
    instanceId: targets.instanceId,
  }
  const good = () => mint(targets, { kind: 'approval', subject })
  const other = DECISIONS.find((candidate) => candidate !== decision) ?? 'deny'
  switch (plan) {
    case 'none':
      return [[ACTION_DIGEST_HEADER, digest]]
    case 'garbage':
      return [
        [CONSENT_HEADER, randomBytes(24).toString('base64')],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'well-formed-random':
      return [
        [CONSENT_HEADER, wellFormedRandomToken()],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'other-decision':
      return [
        [
          CONSENT_HEADER,
          mint(targets, { kind: 'approval', subject: { ...subject, decision: other } }),
        ],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'bound-to-wrong-digest': {
      // The token verifies against the digest header; the runtime must still
      // see that the approval's own digest is another one.
      const wrong = randomDigest()
      return [
        [
          CONSENT_HEADER,
          mint(targets, { kind: 'approval', subject: { ...subject, actionDigest: wrong } }),
        ],
        [ACTION_DIGEST_HEADER, wrong],
      ]
    }
    case 'header-digest-mismatch':
      return [
        [CONSENT_HEADER, good()],
        [ACTION_DIGEST_HEADER, randomDigest()],
      ]
    case 'other-approval':
      return [
        [
          CONSENT_HEADER,
          mint(targets, { kind: 'approval', subject: { ...subject, approvalId: randomUUID() } }),
        ],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'other-instance':
      return [
        [
          CONSENT_HEADER,
          mint(targets, { kind: 'approval', subject: { ...subject, instanceId: randomUUID() } }),
        ],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'other-key':
      return [
        [CONSENT_HEADER, mint(targets, { kind: 'approval', subject }, { key: randomBytes(32) })],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'expired':
      return [
        [
          CONSENT_HEADER,
          mint(targets, { kind: 'approval', subject }, { now: Date.now() - 31_000 }),
        ],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'too-far-ahead':
      return [
        [
          CONSENT_HEADER,
          mint(targets, { kind: 'approval', subject }, { now: Date.now() + TOO_FAR_AHEAD_MS }),
        ],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'duplicate-token': {
      const token = good()
      return [
        [CONSENT_HEADER, token],
        [CONSENT_HEADER, token],
        [ACTION_DIGEST_HEADER, digest],
      ]
    }
    case 'duplicate-digest':
      return [
        [CONSENT_HEADER, good()],
        [ACTION_DIGEST_HEADER, digest],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'no-digest':
      return [[CONSENT_HEADER, good()]]
    // A valid token and digest, sent otherwise than exactly: accepting any
    // of these would decide the seeded approval and move the store.
    case 'padded-token':
      return [
        [CONSENT_HEADER, padded(good())],
        [ACTION_DIGEST_HEADER, digest],
      ]
    case 'padded-digest':
      return [
        [CONSENT_HEADER, good()],
        [ACTION_DIGEST_HEADER, padded(digest)],
      ]
    case 'comma-joined-token': {
      const token = good()
      return [
        [CONSENT_HEADER, `${token}, ${token}`],
        [ACTION_DIGEST_HEADER, digest],
      ]
    }
    case 'upper-case-digest':
      return [
        [CONSENT_HEADER, good()],
        [ACTION_DIGEST_HEADER, digest.toUpperCase()],
      ]
    case 'room-permission-kind':
      return [
        [
          CONSENT_HEADER,
          mint(targets, {
            kind: 'room-permission',
            subject: {
              roomId: targets.approvalId,
              clientRequestId: decision,
              expectedRevision: 0,
              mode: 'full-access',
              instanceId: targets.instanceId,
            },
          }),
        ],
        [ACTION_DIGEST_HEADER, digest],
      ]
  }
}

function permissionConsentHeaders(
  plan: PermissionConsentPlan,
  body: { clientRequestId: string; expectedRevision: number; mode: PermissionMode },
  targets: FuzzTargets,
): Array<[string, string]> {
  const subject = { roomId: targets.roomId, ...body, instanceId: targets.instanceId }
  const token = (changed: Partial<typeof subject>, options: { now?: number; key?: Buffer } = {}) =>
    mint(targets, { kind: 'room-permission', subject: { ...subject, ...changed } }, options)
  switch (plan) {
    case 'none':
      return []
    case 'garbage':
      return [[CONSENT_HEADER, wellFormedRandomToken()]]
    case 'other-room':
      return [[CONSENT_HEADER, token({ roomId: targets.groupRoomId })]]
    case 'other-client-request':
      return [[CONSENT_HEADER, token({ clientRequestId: `${body.clientRequestId}-other` })]]
    case 'other-revision':
      return [[CONSENT_HEADER, token({ expectedRevision: body.expectedRevision + 1 })]]
    case 'other-mode':
      return [
        [
          CONSENT_HEADER,
          token({ mode: MODES.find((mode) => mode !== body.mode) ?? 'full-access' }),
        ],
      ]
    case 'other-instance':
      return [[CONSENT_HEADER, token({ instanceId: randomUUID() })]]
    case 'other-key':
      return [[CONSENT_HEADER, token({}, { key: randomBytes(32) })]]
    case 'expired':
      return [[CONSENT_HEADER, token({}, { now: Date.now() - 31_000 })]]
    case 'duplicate-token': {
      const valid = token({})
      return [
        [CONSENT_HEADER, valid],
        [CONSENT_HEADER, valid],
      ]
    }
    case 'padded-token':
      return [[CONSENT_HEADER, padded(token({}))]]
    case 'comma-joined-token': {
      const valid = token({})
      return [[CONSENT_HEADER, `${valid},${valid}`]]
    }
    case 'approval-kind':
      return [
        [
          CONSENT_HEADER,
          mint(targets, {
            kind: 'approval',
            subject: {
              approvalId: targets.roomId,
              decision: 'allow-always',
              actionDigest: randomDigest(),
              instanceId: targets.instanceId,
            },
          }),
        ],
      ]
  }
}

// --- cases -------------------------------------------------------------------

function methodArb(route: Route): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(route.method) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
    },
    { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'PURGE', 'M-SEARCH') },
  )
}

function withContentHeaders(
  headers: Array<[string, string]>,
  body: Buffer | undefined,
  contentType: string | undefined,
  chunked: boolean,
): Array<[string, string]> {
  const out = [...headers]
  if (contentType !== undefined) out.push(['Content-Type', contentType])
  // Without Content-Length node:http frames the body as chunked: both
  // framings are valid HTTP, so both are exercised.
  if (body !== undefined && !chunked) out.push(['Content-Length', String(body.length)])
  return out
}

/** A request to one route of the table, adversarial in at least one way. */
function routeCaseArb(route: Route, targets: FuzzTargets): fc.Arbitrary<HttpFuzzCase> {
  const key = routeKey(route)
  return fc
    .record({
      method: methodArb(route),
      path: concretePathArb(route.pattern, targets),
      pathVariant: pathVariantArb,
      edge: edgePlanArb,
      body: bodyPlanArb(key),
      contentType: contentTypeArb,
      contentTypeDefect: contentTypeDefectArb,
      chunked: fc.boolean(),
      extra: extraHeadersArb,
      oversizeHeader: fc.oneof(
        { weight: 60, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      randomRoom: validIdArb,
    })
    .map((plan) => {
      let path = plan.path
      const sendsValidBody = plan.body.kind === 'schema-valid'
      // The one schema-valid body that would be accepted as a change:
      // a message to an existing room. Send it only to a room that does not
      // exist.
      if (key === 'POST /v1/rooms/:roomId/messages' && sendsValidBody) {
        path = route.pattern.replace(':roomId', `${plan.randomRoom}-none`)
      }
      path = applyPathVariant(path, plan.pathVariant)
      const body = bodyBytes(plan.body)
      const headers = withContentHeaders(
        [...edgeHeaders(plan.edge, targets), ...plan.extra],
        body,
        body === undefined
          ? undefined
          : contentTypeHeader(plan.contentType, plan.contentTypeDefect),
        plan.chunked,
      )
      if (plan.oversizeHeader) headers.push(['X-Padding', 'p'.repeat(17 * 1024)])
      const edge = edgeStatus(plan.edge)
      return {
        transport: 'http' as const,
        route: key,
        method: plan.method,
        path,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(plan.oversizeHeader
          ? { expectStatus: 431 }
          : edge === undefined
            ? {}
            : { expectStatus: edge }),
        attack: `${plan.method} ${plan.pathVariant} body=${plan.body.kind} ct=${plan.contentType} edge=${JSON.stringify(plan.edge)}`,
        mayReset: plan.oversizeHeader || plan.body.kind === 'oversize',
      }
    })
}

/** A decision on the seeded approval with forged consent, or with valid
 *  consent and a defect elsewhere (edge, body, method, query). */
function approvalForgeryArb(targets: FuzzTargets): fc.Arbitrary<HttpFuzzCase> {
  const path = `/v1/approvals/${targets.approvalId}`
  const pattern = 'POST /v1/approvals/:approvalId'
  return fc
    .record({
      decision: fc.constantFrom<ApprovalDecision>(...DECISIONS),
      consent: approvalConsentArb,
      edge: edgePlanArb,
      // A valid token with one defect outside the token.
      validTokenDefect: fc.constantFrom(
        'none',
        'none',
        'none',
        'extra-body-key',
        'text-plain',
        'query',
        'put-method',
        'edge',
      ),
    })
    .map(({ decision, consent, edge, validTokenDefect }) => {
      const useValid = validTokenDefect !== 'none'
      const edgePlan: EdgePlan =
        validTokenDefect === 'edge'
          ? edge.host === 'ok' && edge.browser === 'none' && edge.auth === 'ok'
            ? { ...edge, browser: 'origin' }
            : edge
          : { host: 'ok', wrongHost: '', browser: 'none', auth: 'ok' }
      const consentHeaders = useValid
        ? ([
            [
              CONSENT_HEADER,
              mint(targets, {
                kind: 'approval',
                subject: {
                  approvalId: targets.approvalId,
                  decision,
                  actionDigest: targets.actionDigest,
                  instanceId: targets.instanceId,
                },
              }),
            ],
            [ACTION_DIGEST_HEADER, targets.actionDigest],
          ] as Array<[string, string]>)
        : approvalConsentHeaders(consent, decision, targets)
      const bodyValue =
        validTokenDefect === 'extra-body-key' ? { decision, approvedBy: 'user' } : { decision }
      const body = Buffer.from(JSON.stringify(bodyValue))
      const headers = withContentHeaders(
        [...edgeHeaders(edgePlan, targets), ...consentHeaders],
        body,
        validTokenDefect === 'text-plain' ? 'text/plain' : 'application/json',
        false,
      )
      const expectStatus = useValid
        ? {
            'extra-body-key': 400,
            'text-plain': 400,
            query: 400,
            'put-method': 405,
            edge: edgeStatus(edgePlan),
          }[validTokenDefect]
        : 403
      return {
        transport: 'http' as const,
        route: pattern,
        method: validTokenDefect === 'put-method' ? 'PUT' : 'POST',
        path: validTokenDefect === 'query' ? `${path}?decision=allow-always` : path,
        headers,
        body,
        ...(expectStatus === undefined ? {} : { expectStatus }),
        attack: useValid
          ? `valid approval token for ${decision} with defect ${validTokenDefect}`
          : `forged approval consent ${consent} for ${decision}`,
        mayReset: false,
      }
    })
}

function permissionForgeryArb(targets: FuzzTargets): fc.Arbitrary<HttpFuzzCase> {
  const pattern = 'PUT /v1/rooms/:roomId/direct/permissions'
  return fc
    .record({
      body: fc.record({
        clientRequestId: validIdArb,
        expectedRevision: fc.constantFrom(0, 0, 0, 1),
        mode: fc.constantFrom<PermissionMode>(...MODES),
      }),
      consent: permissionConsentArb,
      edge: edgePlanArb,
      validTokenDefect: fc.constantFrom('none', 'none', 'extra-body-key', 'text-plain', 'edge'),
    })
    .map(({ body, consent, edge, validTokenDefect }) => {
      const useValid = validTokenDefect !== 'none'
      const edgePlan: EdgePlan =
        validTokenDefect === 'edge'
          ? edge.host === 'ok' && edge.browser === 'none' && edge.auth === 'ok'
            ? { ...edge, auth: 'missing' }
            : edge
          : { host: 'ok', wrongHost: '', browser: 'none', auth: 'ok' }
      const consentHeaders: Array<[string, string]> = useValid
        ? [
            [
              CONSENT_HEADER,
              mint(targets, {
                kind: 'room-permission',
                subject: { roomId: targets.roomId, ...body, instanceId: targets.instanceId },
              }),
            ],
          ]
        : permissionConsentHeaders(consent, body, targets)
      const sent = validTokenDefect === 'extra-body-key' ? { ...body, integrity: 'ok' } : body
      const bytes = Buffer.from(JSON.stringify(sent))
      const headers = withContentHeaders(
        [...edgeHeaders(edgePlan, targets), ...consentHeaders],
        bytes,
        validTokenDefect === 'text-plain' ? 'text/plain' : 'application/json',
        false,
      )
      const expectStatus = useValid
        ? { 'extra-body-key': 400, 'text-plain': 400, edge: edgeStatus(edgePlan) }[validTokenDefect]
        : 403
      return {
        transport: 'http' as const,
        route: pattern,
        method: 'PUT',
        path: `/v1/rooms/${targets.roomId}/direct/permissions`,
        headers,
        body: bytes,
        ...(expectStatus === undefined ? {} : { expectStatus }),
        attack: useValid
          ? `valid permission token with defect ${validTokenDefect}`
          : `forged permission consent ${consent}`,
        mayReset: false,
      }
    })
}

// --- raw framing ---------------------------------------------------------------

interface RawTemplateInput {
  targets: FuzzTargets
  route: Route
  path: string
  auth: boolean
  body: string
}

/** Request bytes `node:http` will not write: conflicting framing, broken
 *  chunking, raw non-ASCII, pipelining, odd request targets. */
const RAW_TEMPLATES: Record<
  string,
  (input: RawTemplateInput) => { text: string | Buffer; methods: string[]; noResponse?: boolean }
> = {
  'content-length-and-chunked': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    methods: [route.method],
  }),
  'chunked-not-last': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked, gzip\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    methods: [route.method],
  }),
  'duplicate-transfer-encoding': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    methods: [route.method],
  }),
  'transfer-encoding-identity': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nTransfer-Encoding: identity\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    methods: [route.method],
  }),
  // Node's parser finds these errors in the body, after the headers reached
  // the route: it answers 400 if no answer has started yet, and otherwise
  // (a GET answered at once, the event stream) closes the connection.
  'chunked-bad-size': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    methods: [route.method],
    noResponse: true,
  }),
  'chunked-size-overflow': ({ path, route }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n{}\r\n0\r\n\r\n`,
    methods: [route.method],
    noResponse: true,
  }),
  'chunked-with-extensions-and-trailer': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)};name=value\r\n${body}\r\n0\r\nX-Trailer: ${'t'.repeat(32)}\r\n\r\n`,
    methods: [route.method],
  }),
  'chunked-many-tiny-chunks': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${[...body].map((char) => `1\r\n${char}\r\n`).join('')}0\r\n\r\n`,
    methods: [route.method],
  }),
  'chunked-over-body-limit': ({ path, route }) => {
    const chunk = 'x'.repeat(16 * 1024)
    return {
      text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${`${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(5)}0\r\n\r\n`,
      methods: [route.method],
    }
  },
  'duplicate-content-length': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n\r\n${body}`,
    methods: [route.method],
  }),
  'signed-content-length': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nContent-Length: +${body.length}\r\n\r\n${body}`,
    methods: [route.method],
  }),
  'declared-over-body-limit': ({ path, route }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n{"decision":`,
    methods: [route.method],
  }),
  'obsolete-line-folding': ({ path, route }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nX-Folded: a\r\n  b\r\n\r\n`,
    methods: [route.method],
  }),
  'bare-lf': ({ path, route }) => ({
    text: `${route.method} ${path} HTTP/1.1\nHOST\nAUTH\n\n`,
    methods: [route.method],
  }),
  'nul-in-header': ({ path, route }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nX-Nul: a\u0000b\r\n\r\n`,
    methods: [route.method],
  }),
  'space-before-colon': ({ path, route }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAuthorization : Bearer x\r\n\r\n`,
    methods: [route.method],
  }),
  'raw-utf8-path': ({ route }) => ({
    text: Buffer.from(
      `${route.method} ${route.pattern.replace(/:[A-Za-z]+/g, 'ｒｏｏｍ‮')} HTTP/1.1\r\nHOST\r\nAUTH\r\n\r\n`,
      'utf8',
    ),
    methods: [route.method],
  }),
  'raw-latin1-path': ({ route }) => ({
    text: Buffer.from(
      `${route.method} ${route.pattern.replace(/:[A-Za-z]+/g, 'caf\u00e9')} HTTP/1.1\r\nHOST\r\nAUTH\r\n\r\n`,
      'latin1',
    ),
    methods: [route.method],
  }),
  'absolute-form-target': ({ targets, path, route }) => ({
    text: `${route.method} http://rebind.test:${targets.port}${path} HTTP/1.1\r\nHost: rebind.test:${targets.port}\r\nAUTH\r\n\r\n`,
    methods: [route.method],
  }),
  'asterisk-target': () => ({
    text: `OPTIONS * HTTP/1.1\r\nHOST\r\nAUTH\r\n\r\n`,
    methods: ['OPTIONS'],
  }),
  'connect-tunnel': ({ targets }) => ({
    text: `CONNECT 127.0.0.1:${targets.port} HTTP/1.1\r\nHOST\r\nAUTH\r\n\r\n`,
    methods: ['CONNECT'],
    noResponse: true,
  }),
  'websocket-upgrade': ({ path }) => ({
    text: `GET ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    methods: ['GET'],
  }),
  'h2c-upgrade': ({ path }) => ({
    text: `GET ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n`,
    methods: ['GET'],
  }),
  'http2-preface': () => ({
    text: `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`,
    methods: ['PRI'],
  }),
  'unknown-version': ({ path, route }) => ({
    text: `${route.method} ${path} HTTP/3.1\r\nHOST\r\nAUTH\r\n\r\n`,
    methods: [route.method],
  }),
  'http-1-0-without-host': ({ path, route }) => ({
    text: `${route.method} ${path} HTTP/1.0\r\nAUTH\r\n\r\n`,
    methods: [route.method],
  }),
  'lower-case-method': ({ path, route }) => ({
    text: `${route.method.toLowerCase()} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\n\r\n`,
    methods: [route.method],
  }),
  'expect-unknown': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    methods: [route.method],
  }),
  'expect-continue': ({ path, route, body }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    methods: [route.method],
  }),
  'request-line-too-long': ({ route }) => ({
    text: `${route.method} /v1/rooms/${'r'.repeat(20_000)} HTTP/1.1\r\nHOST\r\nAUTH\r\n\r\n`,
    methods: [route.method],
  }),
  'too-many-headers': ({ path, route }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\n${Array.from({ length: 3_000 }, (_, index) => `X-${index}: 1\r\n`).join('')}\r\n`,
    methods: [route.method],
  }),
  'host-with-whitespace': ({ targets, path, route }) => ({
    text: `${route.method} ${path} HTTP/1.1\r\nHost:  127.0.0.1:${targets.port} \r\nAUTH\r\n\r\n`,
    methods: [route.method],
  }),
  'pipelined-second-without-auth': ({ targets, path, route }) => ({
    text: `GET /v1/health HTTP/1.1\r\nHOST\r\nAUTH\r\n\r\n${route.method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${targets.port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    methods: ['GET', route.method],
  }),
  'smuggled-request-in-chunked-body': ({ targets, path, route }) => {
    const decision = '{"decision":"allow-once"}'
    const smuggled = `POST /v1/approvals/${targets.approvalId} HTTP/1.1\r\nHost: 127.0.0.1:${targets.port}\r\nContent-Type: application/json\r\nContent-Length: ${decision.length}\r\n\r\n${decision}`
    return {
      text: `${route.method} ${path} HTTP/1.1\r\nHOST\r\nAUTH\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
      methods: [route.method, 'POST'],
    }
  },
}

const RAW_TEMPLATE_NAMES = Object.keys(RAW_TEMPLATES)

/** Raw cases carry no consent, so only a schema-valid body could change
 *  anything; none is sent. */
function acceptedByAnySchema(text: string): boolean {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return false
  }
  return Object.values(BODY_SCHEMAS).some((schema) => schema?.safeParse(value).success === true)
}

function rawCaseArb(targets: FuzzTargets): fc.Arbitrary<RawFuzzCase> {
  return fc
    .record({
      route: fc.constantFrom(...RUNTIME_ROUTE_TABLE),
      template: fc.constantFrom(...RAW_TEMPLATE_NAMES),
      auth: fc.boolean(),
      seededIds: fc.boolean(),
      body: fc
        .oneof(
          fc.constant('{"decision":"allow-once","x":1}'),
          fc.constant('{"clientRequestId":"c","expectedRevision":0,"mode":"full-access","y":1}'),
          fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value) ?? 'null'),
          fc.constant('{'),
        )
        .filter((text) => !acceptedByAnySchema(text)),
    })
    .map(({ route, template, auth, seededIds, body }) => {
      const path = route.pattern.replace(/:([A-Za-z]+)/g, (_match, name: string) =>
        seededIds ? seededIdFor(name, targets) : randomUUID(),
      )
      const build = RAW_TEMPLATES[template]
      if (!build) throw new Error(`no raw template ${template}`)
      const made = build({ targets, route, path, auth, body })
      const fill = (text: string) =>
        text
          .replace('HOST\r\n', `Host: 127.0.0.1:${targets.port}\r\n`)
          .replace('HOST\n', `Host: 127.0.0.1:${targets.port}\n`)
          .replace(/AUTH(\r?\n)/, auth ? `Authorization: Bearer ${targets.bearerToken}$1` : '')
      const bytes =
        typeof made.text === 'string'
          ? Buffer.from(fill(made.text), 'latin1')
          : Buffer.from(fill(made.text.toString('latin1')), 'latin1')
      return {
        transport: 'raw' as const,
        route: routeKey(route),
        attack: `raw ${template} auth=${auth}`,
        bytes,
        methods: made.methods,
        allowNoResponse: made.noResponse === true,
      }
    })
}

/** Every route, equally often, plus consent forgeries on the two consent
 *  routes. */
export function httpCaseArb(targets: FuzzTargets): fc.Arbitrary<HttpFuzzCase> {
  return fc.oneof(
    ...RUNTIME_ROUTE_TABLE.map((route) => ({ weight: 4, arbitrary: routeCaseArb(route, targets) })),
    { weight: 8, arbitrary: approvalForgeryArb(targets) },
    { weight: 4, arbitrary: permissionForgeryArb(targets) },
  )
}

export { rawCaseArb }
