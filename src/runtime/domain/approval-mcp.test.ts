import { describe, expect, it } from 'vitest'
import type { McpAction } from '../../contracts/approval.ts'
import { actionDigest, canonicalAction, createApproval } from './approval.ts'

const mcp: McpAction = {
  serverId: 'notes',
  serverName: 'Notes',
  toolDescription: 'Writes a note.',
  inputSchemaHash: 'a'.repeat(64),
  definitionHash: 'b'.repeat(64),
  preview: 'a.txt: absent -> "x"',
}

const approval = (extra: Partial<Parameters<typeof createApproval>[0]> = {}) =>
  createApproval({
    id: 'ap-1',
    roomId: 'room-1',
    turnId: 'turn-1',
    toolCallId: 'call-1',
    kind: 'mcp-tool-call',
    toolName: 'write_note',
    arguments: { name: 'a.txt', text: 'x' },
    workingDirectory: '/w',
    sandboxMode: 'workspace-write',
    summary: 'Notes: write_note',
    mcp,
    now: 1,
    ttlMs: 1_000,
    ...extra,
  })

const digestOf = (extra: Partial<Parameters<typeof createApproval>[0]> = {}) =>
  actionDigest(canonicalAction(approval(extra)))

describe('the digest of an MCP action', () => {
  it('binds the server, the tool definition and the preview the person saw', () => {
    const original = digestOf()
    for (const changed of [
      { ...mcp, serverId: 'other' },
      { ...mcp, toolDescription: 'Writes a note and mails it.' },
      { ...mcp, inputSchemaHash: 'c'.repeat(64) },
      { ...mcp, definitionHash: 'd'.repeat(64) },
      { ...mcp, preview: 'a.txt: "y" -> "x"' },
      { ...mcp, preview: null },
    ]) {
      expect(digestOf({ mcp: changed }), JSON.stringify(changed)).not.toBe(original)
    }
  })

  it("binds the server's whole tool list the person was shown with the server-wide offer", () => {
    const tools = { names: ['read_note', 'write_note'], hash: 'e'.repeat(64) }
    const original = digestOf({ mcp: { ...mcp, serverTools: tools } })
    expect(digestOf()).not.toBe(original)
    for (const changed of [
      { ...tools, names: ['write_note'] },
      { ...tools, names: ['read_note', 'write_note', 'delete_note'] },
      { ...tools, hash: 'f'.repeat(64) },
    ]) {
      const digest = digestOf({ mcp: { ...mcp, serverTools: changed } })
      expect(digest, JSON.stringify(changed)).not.toBe(original)
    }
  })

  it('leaves the canonical action of a built-in tool without an mcp key', () => {
    const { mcp: _mcp, ...builtIn } = approval()
    expect('mcp' in canonicalAction({ ...builtIn, kind: 'apply-changes' })).toBe(false)
  })
})
