/** Global settings. Invariant: a room's permission change never writes here. */
export interface SettingsStore {
  /** Every setting by key, as stored. */
  all(): Record<string, unknown>
}
