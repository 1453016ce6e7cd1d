import { WalDurability } from '../../src/runtime/store/durability.ts'

/** A seam in the wait for the disk that Assent's tool runner makes between
 *  its last check and the tool's act (ToolCallRunner.execute), for a test
 *  that changes the world right there. */
export interface ToolDiskWait {
  /** Runs `act` once, inside the runner's next wait for the disk (none
   *  with undefined). */
  once(act: (() => unknown) | undefined): void
  /** Whether an `act` is still waiting for its wait. */
  pending(): boolean
  /** Puts the store's own wait back. */
  restore(): void
}

export function hookToolDiskWait(): ToolDiskWait {
  const realDurable = WalDurability.prototype.durable
  let during: (() => unknown) | undefined
  WalDurability.prototype.durable = function (this: WalDurability) {
    const waiting = realDurable.call(this)
    // Only the runner's wait, the one between its check and its act.
    if (during !== undefined && new Error().stack?.includes('ToolCallRunner.execute')) {
      const act = during
      during = undefined
      return waiting.then(act).then(() => undefined)
    }
    return waiting
  }
  return {
    once: (act) => {
      during = act
    },
    pending: () => during !== undefined,
    restore: () => {
      WalDurability.prototype.durable = realDurable
    },
  }
}
