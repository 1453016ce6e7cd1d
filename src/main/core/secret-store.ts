import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { realpath } from 'node:fs/promises'

export const INTEGRITY_KEY_BYTES = 32
/** The keychain service every Assent entry lives under. */
export const SECRET_STORE_SERVICE = 'assent'
/** The keychain service of the rollback anchors: a service of their own, so
 *  no data folder's path can ever name another data folder's anchor entry. */
export const ROLLBACK_ANCHOR_SERVICE = 'assent-rollback-anchor'

/**
 * Port: where main keeps the integrity key of a data folder (the key that seals
 * the audit log, room permissions and grants on disk) and its rollback
 * anchor (the highest rollback counter the database reached,
 * docs/integrity.md#rollback).
 *
 * Invariant the adapter must keep: once a key is stored for an account,
 * every later `read` returns exactly those bytes, and `create` never replaces
 * an existing key. A replaced key would turn every MAC on disk into a
 * tampering report, and whoever could replace it could sign rows of their
 * own. `writeAnchor` is durable when it resolves (the next `readAnchor`
 * answers it, after a crash too); it replaces the value as told, and only
 * `RollbackAnchorKeeper`, which refuses to lower it, calls it. When the
 * store cannot be reached, the adapter throws an error that says what to
 * do; it never falls back to another store on its own.
 */
export interface SecretStore {
  /** Where the key lives, for messages: "the OS keychain (Secret Service)". */
  readonly description: string
  /** The stored key, or undefined when none was ever stored for `account`. */
  read(account: string): Promise<Buffer | undefined>
  /** Stores a new key for `account`; throws if one is there already. */
  create(account: string, key: Buffer): Promise<void>
  /** The stored rollback anchor, or undefined when none was ever stored. */
  readAnchor(account: string): Promise<number | undefined>
  /** Stores `counter` as the rollback anchor of `account`. */
  writeAnchor(account: string, counter: number): Promise<void>
}

/** A data folder's account: its real path, so two spellings of one directory
 *  share one key and the CLI finds the key the app made. */
export function integrityAccount(dataDir: string): Promise<string> {
  return realpath(dataDir)
}

/**
 * The data folder's integrity key: the stored one, or a new one made and stored
 * on first start. Read back after creating, so a store that silently drops
 * writes fails here instead of sealing rows with a key nobody kept.
 */
export async function integrityKeyFor(
  store: SecretStore,
  dataDir: string,
  randomBytes: (size: number) => Buffer = nodeRandomBytes,
): Promise<Buffer> {
  const account = await integrityAccount(dataDir)
  const existing = await store.read(account)
  if (existing) return existing
  await store.create(account, randomBytes(INTEGRITY_KEY_BYTES))
  const stored = await store.read(account)
  if (!stored) {
    throw new Error(
      `the integrity key for ${account} was written to ${store.description} but could not be read back`,
    )
  }
  return stored
}

/** Decodes a stored key, refusing anything that is not exactly 32 bytes in
 *  canonical base64url: a damaged entry is reported, never "repaired". */
export function decodeStoredKey(text: string, where: string): Buffer {
  const trimmed = text.trim()
  const key = Buffer.from(trimmed, 'base64url')
  if (key.length !== INTEGRITY_KEY_BYTES || key.toString('base64url') !== trimmed) {
    throw new Error(
      `${where} does not hold a ${INTEGRITY_KEY_BYTES}-byte integrity key; ` +
        'Assent will not replace it (that would disown everything sealed with it): ' +
        'restore it, or remove it and start from a new data folder',
    )
  }
  return key
}

/** Canonical decimal, no sign, no leading zero, at most a safe integer. */
const ANCHOR_TEXT = /^(0|[1-9][0-9]{0,15})$/

export function encodeAnchor(counter: number): string {
  if (!Number.isSafeInteger(counter) || counter < 0) {
    throw new Error(`a rollback anchor is a non-negative safe integer, not ${counter}`)
  }
  return String(counter)
}

/** Decodes a stored anchor, refusing anything but canonical decimal: a
 *  damaged entry is reported, never read as some number it might mean. */
export function decodeStoredAnchor(text: string, where: string): number {
  const trimmed = text.trim()
  const counter = Number(trimmed)
  if (!ANCHOR_TEXT.test(trimmed) || !Number.isSafeInteger(counter)) {
    throw new Error(
      `${where} does not hold a rollback anchor (a decimal counter); ` +
        'Assent will not guess what it held: restore it, or remove it and start from a new data folder',
    )
  }
  return counter
}
