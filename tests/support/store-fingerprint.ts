import { createHash } from 'node:crypto'
import type { RuntimeHarness } from './runtime-harness.ts'

/**
 * A digest of everything a request could change, read over HTTP the way main
 * reads it (the SQLite file belongs to the runtime process): the audit chain,
 * the rooms, the global settings and, for each room given, its timeline,
 * approvals, grants and (for direct rooms) permissions. Two equal
 * fingerprints mean no request in between changed the store.
 */
export async function storeFingerprint(
  harness: RuntimeHarness,
  roomIds: readonly string[],
): Promise<string> {
  const paths = ['/v1/audit/export', '/v1/rooms', '/v1/settings/global']
  for (const roomId of roomIds) {
    paths.push(
      `/v1/rooms/${roomId}/timeline`,
      `/v1/rooms/${roomId}/approvals`,
      `/v1/rooms/${roomId}/grants`,
      `/v1/rooms/${roomId}/direct/permissions`,
    )
  }
  const hash = createHash('sha256')
  for (const path of paths) {
    const response = await harness.client.raw('GET', path)
    // Group rooms have no direct permissions (409); that answer is part of
    // the state too, so it is hashed like any other.
    hash.update(`${path}\n${response.status}\n${JSON.stringify(response.body)}\n`)
  }
  return hash.digest('hex')
}
