import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  argumentsText,
  MAX_MCP_ARGUMENTS_CHARS,
  MAX_MCP_DESCRIPTION_CHARS,
  MAX_MCP_PREVIEW_CHARS,
  MAX_SERVER_TOOLS,
} from '../src/contracts/approval.ts'
import {
  GatewayCallRequestSchema,
  GatewayCallResultSchema,
  GatewayFormRequestSchema,
  MAX_FORM_JSON_CHARS,
  MAX_GATEWAY_RESULT_CHARS,
} from '../src/contracts/mcp-gateway.ts'
import { SendMessageRequestSchema } from '../src/contracts/room.ts'
import { MAX_BODY_BYTES } from '../src/runtime/server/http-kit.ts'
import { createRoom, send } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// A contract bounds text in characters; the runtime reads a body up to
// MAX_BODY_BYTES. Whatever a contract allows must fit, or the request is
// refused for its bytes and its sender hears that the runtime failed,
// not the contract's reason. Each request here is the largest its contract
// allows, in the characters that take the most bytes of JSON.

/** 6 bytes of JSON (`\u0001`) for one character. */
const ESCAPED = '\u0001'
/** 3 bytes of UTF-8, unescaped: the most a character of a text counted
 *  as JSON (the arguments, a form) can take. */
const WIDE = '界'
const HASH = '0'.repeat(64)

/** Arguments whose shown text is `length` characters, all but the
 *  braces and the key `WIDE`. */
function argumentsShownAs(length: number): Record<string, unknown> {
  const around = argumentsText({ v: '' }).length
  return { v: WIDE.repeat(length - around) }
}

/** A form of `WIDE` text as close under MAX_FORM_JSON_CHARS as whole
 *  fields make it. */
function largestForm() {
  const field = { type: 'string', title: WIDE.repeat(200), description: WIDE.repeat(2_000) }
  const properties: Record<string, typeof field> = {}
  const form = { message: WIDE.repeat(4_000), requestedSchema: { type: 'object', properties } }
  for (let n = 0; n < 50; n += 1) {
    properties[`f${n}`] = field
    if (JSON.stringify(form).length > MAX_FORM_JSON_CHARS) {
      delete properties[`f${n}`]
      break
    }
  }
  return form
}

const LARGEST: Array<[string, z.ZodType, unknown]> = [
  [
    'a call through the gateway',
    GatewayCallRequestSchema,
    {
      workspaceIdentity: {
        realPath: ESCAPED.repeat(4_096),
        dev: '9'.repeat(20),
        ino: '9'.repeat(20),
      },
      serverId: 'a'.repeat(32),
      serverName: ESCAPED.repeat(80),
      toolName: 'a'.repeat(128),
      toolDescription: ESCAPED.repeat(MAX_MCP_DESCRIPTION_CHARS),
      inputSchemaHash: HASH,
      definitionHash: HASH,
      arguments: argumentsShownAs(MAX_MCP_ARGUMENTS_CHARS),
      preview: ESCAPED.repeat(MAX_MCP_PREVIEW_CHARS),
      serverTools: {
        names: Array.from({ length: MAX_SERVER_TOOLS }, () => ESCAPED.repeat(128)),
        hash: HASH,
      },
    },
  ],
  [
    'what a gateway call returned',
    GatewayCallResultSchema,
    { ok: true, output: ESCAPED.repeat(MAX_GATEWAY_RESULT_CHARS) },
  ],
  ["a server's form through the gateway", GatewayFormRequestSchema, largestForm()],
  [
    "a person's message",
    SendMessageRequestSchema,
    { clientRequestId: ESCAPED.repeat(128), text: ESCAPED.repeat(32_768), plan: false },
  ],
]

describe('the largest request each contract allows fits the body the runtime reads', () => {
  it.each(LARGEST)('%s', (_name, schema, request) => {
    // Largest: one character more would break the contract.
    expect(schema.safeParse(request).success).toBe(true)
    expect(Buffer.byteLength(JSON.stringify(request))).toBeLessThanOrEqual(MAX_BODY_BYTES)
  })

  it('the form is the largest a form may be, to within one field', () => {
    const length = JSON.stringify(largestForm()).length
    expect(length).toBeLessThanOrEqual(MAX_FORM_JSON_CHARS)
    expect(length).toBeGreaterThan(MAX_FORM_JSON_CHARS - 7_000)
  })
})

describe('a runtime takes the largest message of three-byte characters', () => {
  let harness: RuntimeHarness
  beforeAll(async () => {
    harness = await startHarness()
  })
  afterAll(async () => {
    await harness?.close()
  })

  it('a message of 32 768 Chinese characters starts a turn', async () => {
    const room = await createRoom(harness)
    // About 96 KiB of UTF-8: refused for its bytes at 64 KiB.
    expect(await send(harness, room.id, WIDE.repeat(32_768))).toMatch(/\S/)
  })
})
