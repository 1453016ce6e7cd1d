import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import type { RoomNow } from '../policy/allower-stands.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { narrowestRoomPolicy } from '../policy/room-policy.ts'
import type { ApproverWebhookStore } from '../ports/approver-webhook-store.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import type { RoomStore } from '../ports/room-store.ts'

export interface StoredRoomNowStores {
  rooms: Pick<RoomStore, 'get'>
  grants: Pick<GrantStore, 'listActive'>
  /** Absent where no room can have a webhook (a test's runtime). */
  webhooks?: Pick<ApproverWebhookStore, 'get'>
}

/**
 * The room as its stored row says now, for the rule every door shares
 * (policy/allower-stands.ts). A row edited on disk or rolled back reads as
 * the narrowest policy of its kind, as the store reads it and as a turn
 * is admitted in it (the person is asked for everything that asks): its
 * stored mode cannot be told until the person confirms one again, so a
 * running turn admitted wider is narrowed to that. A room that is gone
 * reads as plan: nobody is left to ask. The grant and webhook stores
 * already hide what belongs to such a row.
 */
export function storedRoomNow(stores: StoredRoomNowStores): RoomNow {
  return {
    policyOf(roomId: string): RoomPolicy {
      const room = stores.rooms.get(roomId)
      if (room === undefined) return policyForMode('plan')
      return room.integrity === 'ok' ? room.policy : narrowestRoomPolicy(room.kind)
    },
    grantActive(roomId: string, grantId: string): boolean {
      return stores.grants.listActive(roomId).some((grant) => grant.id === grantId)
    },
    webhookOf(roomId: string) {
      const webhook = stores.webhooks?.get(roomId)
      return webhook === undefined ? undefined : { id: webhook.webhookId, setAt: webhook.createdAt }
    },
  }
}
