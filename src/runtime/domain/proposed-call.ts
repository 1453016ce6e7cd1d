import type { ToolCallRecord, Turn } from '../../contracts/room.ts'

/**
 * The record of a call an agent (or an MCP client through the gateway)
 * proposed, before anything about it is checked or asked: it starts
 * `awaiting-approval` with no result and no approval, so every way it ends
 * afterwards (refused, denied, run) is a settlement of this one record.
 */
export function proposedCall(fields: {
  id: string
  turn: Pick<Turn, 'id' | 'roomId'>
  seq: number
  toolName: string
  args: ToolCallRecord['arguments']
  at: number
}): ToolCallRecord {
  const { id, turn, seq, toolName, args, at } = fields
  return {
    id,
    roomId: turn.roomId,
    turnId: turn.id,
    seq,
    toolName,
    arguments: args,
    status: 'awaiting-approval',
    result: null,
    approvalId: null,
    createdAt: at,
    updatedAt: at,
  }
}
