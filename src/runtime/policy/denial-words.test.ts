import { describe, expect, it } from 'vitest'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import { messageText, templateIn, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import {
  PERSON_DECIDED,
  WHO_DECIDED,
  type Said,
  type WhoDecidedRow,
} from '../../contracts/test-support/who-decided.ts'
import { catalogs } from '../../common/i18n/index.ts'
import { deniedMessage, deniedText } from '../agent/call-settlement.ts'
import { runGatedMcpCall, type McpConsentTicket } from '../mcp/gated-mcp-call.ts'
import type { McpConnection } from '../mcp/mcp-connection.ts'
import { McpRefusal } from '../mcp/mcp-refusal.ts'
import { outcomeOfRefusal } from '../mcp/mcp-room-calls.ts'
import { deniedRequestWords } from './denial-words.ts'

// The runtime's doors walked with every decider of the shared table: what
// a built-in tool's denial tells the model and the timeline (the words
// tool-call-runner.ts settles a denied call with), what an external
// agent's denied request shows, and what an MCP call in a room tells its
// caller and the timeline, through the gated call that refuses it.

function said(words: RuntimeMessage | undefined): Said {
  const inLanguage = (lang: keyof Said) =>
    words === undefined
      ? ''
      : (messageText(words, (code) => templateIn(catalogs[lang].runtime, code)) ?? '')
  return { en: inLanguage('en'), 'zh-CN': inLanguage('zh-CN') }
}

/** One tool on a server, whose call is answered by `ticket`; the refusal
 *  as the room records it. */
async function mcpRoomCallAnswered(ticket: Partial<McpConsentTicket>) {
  const tool = { name: 'write_note', description: 'Writes a note', inputSchema: { type: 'object' } }
  const connection = {
    server: {
      id: 'notes',
      name: 'Notes',
      transport: { type: 'stdio', command: 'notes', args: [] },
      allowed_tools: ['write_note'],
      requires_approval: true,
      manifest: { readonly: false },
    },
    listAllowedTools: () => Promise.resolve([tool]),
    findTool: () => Promise.resolve(tool),
    callTool: () => Promise.reject(new Error('a denied call must not run')),
  } as unknown as McpConnection
  const consent = {
    ask: (): Promise<McpConsentTicket> =>
      Promise.resolve({
        status: 'denied',
        reason: null,
        report: () => Promise.resolve(),
        ...ticket,
      }),
  }
  const refusal: unknown = await runGatedMcpCall(connection, 'write_note', {}, consent, '/w').then(
    () => undefined,
    (error: unknown) => error,
  )
  if (!(refusal instanceof McpRefusal)) throw new Error('the denied MCP call was not refused')
  return outcomeOfRefusal(refusal, 'notes__write_note')
}

/** What every runtime door says of a denied approval. */
async function doorsSay(approval: ApprovalRecord): Promise<WhoDecidedRow['denied']> {
  const { decidedBy, reason, reasonMessage } = approval
  const mcp = await mcpRoomCallAnswered({
    reason: reason ?? null,
    ...(decidedBy === undefined ? {} : { decidedBy }),
    ...(reasonMessage === undefined ? {} : { reasonMessage }),
  })
  // An MCP call in a room reads in the timeline as a built-in tool's does.
  expect(mcp.status).toBe('denied')
  expect(said(mcp.result.message)).toEqual(said(deniedMessage(approval)))
  return {
    model: deniedText(approval),
    tool: said(deniedMessage(approval)),
    external: said(deniedRequestWords(approval)),
    mcp: mcp.result.output,
  }
}

const record = (row: WhoDecidedRow) =>
  ({ id: 'ap-1', decidedAt: 3, ...row.approval }) as ApprovalRecord

describe('a denial at every runtime door says who decided', () => {
  it.each(WHO_DECIDED.filter((row) => row.denied))('when $decided', async (row) => {
    expect(await doorsSay(record(row))).toEqual(row.denied)
  })

  it('still words the person’s own denial as theirs (a control)', async () => {
    expect(await doorsSay(record(PERSON_DECIDED))).toEqual(PERSON_DECIDED.denied)
  })
})
