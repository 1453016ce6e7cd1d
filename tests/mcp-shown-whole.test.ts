import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '../src/contracts/approval.ts'
import type { ToolCallRecord } from '../src/contracts/room.ts'
import { MAX_MCP_DESCRIPTION_CHARS, MAX_MCP_PREVIEW_CHARS } from '../src/contracts/approval.ts'
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

// What a person is asked about an MCP call, the tool's description and its
// preview, is shown whole in the protected window. A server that sends
// more than a person is shown (MAX_MCP_DESCRIPTION_CHARS,
// MAX_MCP_PREVIEW_CHARS) gets its call refused, never asked about in part,
// and the rule is one (gated-mcp-call.ts): one table walked through both
// doors an MCP call comes through, a room's MCP call in the runtime and a
// call through the gateway.

/** The notes server's preview of `write_note` {name: NOTE, text: "x"} is
 *  `p.txt: "<the note now>" -> "x"`: this many characters besides the
 *  note's own. */
const NOTE = 'p.txt'
const PREVIEW_AROUND_NOTE = `${NOTE}: "" -> "x"`.length

const CASES: Array<{
  name: string
  description: string | null
  note: string | null
  asked: boolean
}> = [
  {
    name: 'a description as long as a person is shown',
    description: 'd'.repeat(MAX_MCP_DESCRIPTION_CHARS),
    note: null,
    asked: true,
  },
  {
    name: 'a description one character longer',
    description: 'd'.repeat(MAX_MCP_DESCRIPTION_CHARS + 1),
    note: null,
    asked: false,
  },
  {
    name: 'a preview as long as a person is shown',
    description: null,
    note: 'n'.repeat(MAX_MCP_PREVIEW_CHARS - PREVIEW_AROUND_NOTE),
    asked: true,
  },
  {
    name: 'a preview one character longer',
    description: null,
    note: 'n'.repeat(MAX_MCP_PREVIEW_CHARS - PREVIEW_AROUND_NOTE + 1),
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

  const doors: Record<string, () => Promise<Outcome>> = {
    "a room's MCP call": async () => {
      const turnId = await send(
        harness,
        roomId,
        `mcp notes write_note {"name": "${NOTE}", "text": "x"}`,
      )
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
    'a call through the gateway': async () => {
      const call = agent.callTool({
        name: 'notes__write_note',
        arguments: { name: NOTE, text: 'x' },
      })
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

        const outcome = await through()
        expect(outcome.asked).toBe(each.asked)
        if (!outcome.asked) expect(outcome.detail).toBe('too_long_to_show')
      })
    }
  }
})
