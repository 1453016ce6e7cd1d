import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import type { SettingsStore } from '../ports/settings-store.ts'

export const DEFAULT_GLOBAL_SETTINGS: Readonly<Record<string, unknown>> = {
  defaultMode: 'ask-for-approval',
  approvalTtlMs: 120_000,
  theme: 'system',
  language: 'system',
}

/** Global settings. A room's permission change never writes here. */
export class SqliteSettingsRepository implements SettingsStore {
  private readonly db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.db = db
  }

  seedDefaults(): void {
    const insert = this.db.prepare('INSERT OR IGNORE INTO settings (key, value_json) VALUES (?, ?)')
    for (const [key, value] of Object.entries(DEFAULT_GLOBAL_SETTINGS))
      insert.run(key, canonicalJson(value))
  }

  all(): Record<string, unknown> {
    const settings: Record<string, unknown> = {}
    for (const row of this.db.prepare('SELECT key, value_json FROM settings ORDER BY key').all()) {
      settings[String(row.key)] = JSON.parse(String(row.value_json))
    }
    return settings
  }
}
