import { z } from 'zod'
import { RollbackCounterSchema } from './rollback-anchor.ts'

export const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/

/**
 * The first and only message main sends the runtime, over the process's IPC
 * channel: secrets never travel on argv, env or HTTP.
 */
export const RuntimeInitSchema = z.strictObject({
  type: z.literal('init'),
  bearerToken: z.string().min(32).max(256),
  /** 32 random bytes, base64url: made by main at each launch. */
  consentKey: z.string().regex(BASE64URL_32_BYTES),
  /** 32 bytes, base64url: the integrity key main reads from the OS keychain
   *  (the same for every launch on one data folder), so the runtime itself
   *  never loads the native keychain module. */
  integrityKey: z.string().regex(BASE64URL_32_BYTES),
  dataDir: z.string().min(1).max(4096),
  /** The data folder's rollback anchor as main read it from the SecretStore
   *  just before this launch, or null when none was ever stored (a new or
   *  upgraded data folder). Required, so a main that forgot it cannot start a
   *  runtime that would then take any database at its word. */
  rollbackAnchor: RollbackCounterSchema.nullable(),
  approvalTtlMs: z.number().int().min(100).max(86_400_000).optional(),
  /** Each phase of an ordinary question's wait (silent, then counting
   *  down); 60 s unless the smoke scenario shortens it in a development
   *  build. */
  questionPhaseMs: z.number().int().min(1_000).max(3_600_000).optional(),
  scopedRoots: z.array(z.string().min(1)).max(32).optional(),
  /** mcp.json, when not the one in the data folder. */
  mcpConfigPath: z.string().min(1).max(4096).optional(),
})
export type RuntimeInit = z.infer<typeof RuntimeInitSchema>

export const RuntimeReadySchema = z.strictObject({
  type: z.literal('ready'),
  port: z.number().int().min(1).max(65_535),
  instanceId: z.string().min(1),
})
export type RuntimeReady = z.infer<typeof RuntimeReadySchema>

export const RuntimeFailedSchema = z.strictObject({
  type: z.literal('failed'),
  error: z.string(),
})

export const RuntimeShutdownSchema = z.strictObject({ type: z.literal('shutdown') })
