import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '../src/contracts/approval.ts'
import type { ToolCallRecord } from '../src/contracts/room.ts'
import {
  argumentsText,
  MAX_MCP_ARGUMENTS_CHARS,
  MAX_MCP_DESCRIPTION_CHARS,
  MAX_MCP_PREVIEW_CHARS,
} from '../src/contracts/approval.ts'
import { MCP_REFUSAL_CODES } from '../src/runtime/mcp/mcp-refusal.ts'
import {
  connectThroughGateway,
  gatewayRoom,
  refusalOf,
  writeNotesConfig,
  type NotesFixture,
} from './support/mcp-gateway-harness.ts'
import { decide, roomApprovals } from './support/policy-helpers.ts'
import { createRoom, send, timeline, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// What a person is asked about an MCP call, the tool's description, its
// preview and its arguments, is shown whole in the protected window. A call
// that holds more than a person is shown (MAX_MCP_DESCRIPTION_CHARS,
// MAX_MCP_PREVIEW_CHARS, MAX_MCP_ARGUMENTS_CHARS) is refused, never asked
// about in part, and what is within them is asked about, whatever bytes it
// takes on its way to the runtime. The rule is one (`shownWhole`,
// mcp-consent-request.ts): one table walked through both doors an MCP call comes
// through, a room's MCP call in the runtime and a call through the gateway
// (mcp-gateway-governed.test.ts walks the gateway's resource reads).

/** The notes server's preview of `write_note` {name: NOTE, text: "x"} is
 *  `p.txt: "<the note now>" -> "x"`: this many characters besides the
 *  note's own. */
const NOTE = 'p.txt'
const PREVIEW_AROUND_NOTE = `${NOTE}: "" -> "x"`.length
const WRITE = { tool: 'write_note', args: { name: NOTE, text: 'x' } }

/**
 * `read_note` (no preview) with arguments the window shows as exactly
 * `length` characters: `items` list items, then `char` filling the note's
 * name. The window shows a list an item a line, so the items make the
 * shown text longer than the JSON that carries them: a room's message
 * (its own limit is 32 768 characters) reaches past the limit as a
 * model's answer would.
 */
function readShownAs(length: number, char: string, items: number) {
  const list = Array.from({ length: items }, () => 0)
  const around = argumentsText({ items: list, name: '' }).length
  return { tool: 'read_note', args: { items: list, name: char.repeat(length - around) } }
}

/** A character that takes three bytes of UTF-8: at the limits, the
 *  gateway's request to the runtime is far larger than at one byte. */
const WIDE = '界'

const CASES: Array<{
  name: string
  call: { tool: string; args: Record<string, unknown> }
  description: string | null
  note: string | null
  asked: boolean
}> = [
  {
    name: 'a description as long as a person is shown',
    call: WRITE,
    description: 'd'.repeat(MAX_MCP_DESCRIPTION_CHARS),
    note: null,
    asked: true,
  },
  {
    name: 'a description one character longer',
    call: WRITE,
    description: 'd'.repeat(MAX_MCP_DESCRIPTION_CHARS + 1),
    note: null,
    asked: false,
  },
  {
    name: 'a preview as long as a person is shown',
    call: WRITE,
    description: null,
    note: 'n'.repeat(MAX_MCP_PREVIEW_CHARS - PREVIEW_AROUND_NOTE),
    asked: true,
  },
  {
    name: 'a preview as long as a person is shown, of three-byte characters',
    call: WRITE,
    description: null,
    note: WIDE.repeat(MAX_MCP_PREVIEW_CHARS - PREVIEW_AROUND_NOTE),
    asked: true,
  },
  {
    name: 'a preview one character longer',
    call: WRITE,
    description: null,
    note: 'n'.repeat(MAX_MCP_PREVIEW_CHARS - PREVIEW_AROUND_NOTE + 1),
    asked: false,
  },
  {
    name: 'arguments as long as a person is shown',
    call: readShownAs(MAX_MCP_ARGUMENTS_CHARS, 'a', 4_000),
    description: null,
    note: null,
    asked: true,
  },
  {
    name: 'arguments as long as a person is shown, of three-byte characters',
    call: readShownAs(MAX_MCP_ARGUMENTS_CHARS, WIDE, 1_000),
    description: null,
    note: null,
    asked: true,
  },
  {
    name: 'arguments one character longer',
    call: readShownAs(MAX_MCP_ARGUMENTS_CHARS + 1, 'a', 4_000),
    description: null,
    note: null,
    asked: false,
  },
]

type Outcome = { asked: true } | { asked: false; detail: string | undefined }

describe('what an MCP call shows the person fits what they are shown whole, at every door', () => {
  let harness: RuntimeHarness
  let fixture: NotesFixture
  let agent: Client
  let roomId: string

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'assent-mcp-shown-whole-'))
    fixture = await writeNotesConfig(root)
    harness = await startHarness({ root, mcpConfigPath: fixture.configPath })
    agent = (await connectThroughGateway(harness, fixture.configPath)).client
    roomId = (await createRoom(harness)).id
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
    await rm(harness.root, { recursive: true, force: true })
  })

  /** Denies what was asked, so nothing runs and the next case starts clean. */
  async function deny(view: ApprovalView) {
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  }

  type Call = (typeof CASES)[number]['call']
  const doors: Record<string, (call: Call) => Promise<Outcome>> = {
    "a room's MCP call": async ({ tool, args }) => {
      const turnId = await send(harness, roomId, `mcp notes ${tool} ${JSON.stringify(args)}`)
      const seen = await eventually<{ view: ApprovalView } | { call: ToolCallRecord | undefined }>(
        async () => {
          const pending = (await roomApprovals(harness, roomId)).find(
            (approval) => approval.turnId === turnId && approval.status === 'pending',
          )
          if (pending) return { view: await harness.client.getApproval(pending.id) }
          const now = await timeline(harness, roomId)
          const turn = now.turns.find((candidate) => candidate.id === turnId)
          if (turn?.status !== 'done' && turn?.status !== 'failed') return undefined
          return { call: now.toolCalls.find((call) => call.turnId === turnId) }
        },
        'the call to be asked about or settled',
      )
      if ('view' in seen) {
        await deny(seen.view)
        await turnSettled(harness, roomId, turnId)
        return { asked: true }
      }
      expect(seen.call?.status).toBe('refused')
      return { asked: false, detail: seen.call?.result?.code }
    },
    'a call through the gateway': async ({ tool, args }) => {
      const call = agent.callTool({ name: `notes__${tool}`, arguments: args })
      // Handled at once: a refusal may come before anything is asked.
      let ended = false
      const settled = call.then(
        () => 'ran' as const,
        () => 'refused' as const,
      )
      void settled.then(() => (ended = true))
      // The call's pending approval, or null once the call ended unasked.
      const asked = await eventually<ApprovalView | null>(async () => {
        if (ended) return null
        const room = await gatewayRoom(harness)
        const pending = (await roomApprovals(harness, room.id)).find(
          (approval) => approval.status === 'pending',
        )
        return pending ? await harness.client.getApproval(pending.id) : undefined
      }, 'the gateway call to be asked about, or to end')
      if (asked !== null) {
        await deny(asked)
        expect(await settled).toBe('refused')
        return { asked: true }
      }
      const refusal = await refusalOf(call)
      expect(refusal.code).toBe(MCP_REFUSAL_CODES.not_allowed)
      return { asked: false, detail: (refusal.data as { detail?: string }).detail }
    },
  }

  for (const [door, through] of Object.entries(doors)) {
    for (const each of CASES) {
      it(`${door}: ${each.name}`, async () => {
        if (each.description === null) await rm(fixture.descriptionFile, { force: true })
        else await writeFile(fixture.descriptionFile, each.description)
        const note = join(fixture.notesDir, NOTE)
        if (each.note === null) await rm(note, { force: true })
        else await writeFile(note, each.note)

        const outcome = await through(each.call)
        expect(outcome.asked).toBe(each.asked)
        if (!outcome.asked) expect(outcome.detail).toBe('too_long_to_show')
      })
    }
  }
})
