import type { SecretStore } from '../secret-store.ts'

/** A store that accepts every write and keeps nothing, as a broken keychain
 *  might: what reads back after writing must catch it. */
export function forgetfulSecretStore(): SecretStore {
  return {
    description: 'a forgetful store',
    read: async () => undefined,
    create: async () => undefined,
    readAnchor: async () => undefined,
    writeAnchor: async () => undefined,
  }
}
