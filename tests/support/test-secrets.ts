import { randomBytes } from 'node:crypto'
import { FileSecretStore } from '../../src/main/core/file-secret-store.ts'
import { RollbackAnchorKeeper } from '../../src/main/core/rollback-anchor-keeper.ts'
import type { DataDirSecrets } from '../../src/main/core/secret-store-selection.ts'

/** The data folder's rollback anchor in the real file store, beside its
 *  database (what ASSENT_SECRET_STORE=file keeps). */
export function fileRollbackAnchor(dataDir: string): RollbackAnchorKeeper {
  return new RollbackAnchorKeeper(new FileSecretStore(), dataDir)
}

/** A data folder's secrets for a test: a random integrity key (the same for
 *  every start, as the keychain would keep it) and the file store's
 *  rollback anchor. */
export function testSecrets(dataDir: string, integrityKey = randomBytes(32)): DataDirSecrets {
  return { integrityKey, rollbackAnchor: fileRollbackAnchor(dataDir) }
}
