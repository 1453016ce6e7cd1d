import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { actionDigest, canonicalAction, createApproval } from './approval.ts'

/** Checked outside Node too: `printf '%s' "$PINNED_CANONICAL" | sha256sum`. */
const PINNED_CANONICAL =
  '{"arguments":{"path":"notes.txt","text":"héllo €"},"kind":"apply-changes",' +
  '"roomId":"room-pinned","sandboxMode":"workspace-write","summary":"Write notes.txt",' +
  '"toolName":"write_file","workingDirectory":"/home/person/project"}'
const PINNED_DIGEST = 'c28ffebde86a25f477badf7a6098622ada5b217ca816b4c7ff73edd76da6df99'

/** A fixed built-in tool approval. Its digest is pinned: main and the runtime
 *  compute it independently, and a token minted by one build must verify in
 *  another, so any change to the canonical form is a breaking change that has
 *  to show up here. */
const approval = createApproval({
  id: 'ap-pinned',
  roomId: 'room-pinned',
  turnId: 'turn-pinned',
  toolCallId: 'call-pinned',
  kind: 'apply-changes',
  toolName: 'write_file',
  arguments: { text: 'héllo €', path: 'notes.txt' },
  workingDirectory: '/home/person/project',
  sandboxMode: 'workspace-write',
  summary: 'Write notes.txt',
  now: 1_700_000_000_000,
  ttlMs: 120_000,
})

describe('actionDigest', () => {
  it('hashes the RFC 8785 form of exactly the fields the person is shown', () => {
    expect(canonicalJson(canonicalAction(approval))).toBe(PINNED_CANONICAL)
  })

  it('is pinned for a fixed approval', () => {
    expect(actionDigest(canonicalAction(approval))).toBe(PINNED_DIGEST)
  })

  it('ignores what the person is not shown (ids of the turn and call, times, status)', () => {
    const later = {
      ...approval,
      id: 'ap-other',
      turnId: 'turn-other',
      toolCallId: 'call-other',
      createdAt: 1,
      expiresAt: 2,
      status: 'denied' as const,
    }
    expect(actionDigest(canonicalAction(later))).toBe(PINNED_DIGEST)
  })
})
