import { z } from 'zod'

/** A server id becomes the prefix of `server__tool` names and a URL segment:
 *  lowercase, no underscores, so the namespace split is never ambiguous. */
export const McpServerIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be 1-32 lowercase letters, digits or dashes')

/** The id Assent keeps for its own workspace-scoped filesystem server. */
export const BUILT_IN_FILESYSTEM_SERVER_ID = 'filesystem'

/** One tool name, spelled out. Wildcards are refused outright: a pattern
 *  would let a server widen what it exposes without anyone editing this
 *  file. */
export const McpToolNameSchema = z
  .string()
  .min(1)
  .max(128)
  .refine((name) => !name.includes('*'), 'wildcards are refused: name each tool')
  .refine((name) => /^[A-Za-z0-9_.-]+$/.test(name), 'must be letters, digits, _ . or -')

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost'])

export const McpStdioTransportSchema = z.strictObject({
  type: z.literal('stdio'),
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(4096)).max(64).default([]),
  env: z.record(z.string().min(1), z.string()).default({}),
  cwd: z.string().min(1).max(4096).optional(),
})

export const McpHttpTransportSchema = z.strictObject({
  type: z.literal('streamable-http'),
  /** Loopback only: a remote URL would send the arguments the person
   *  approved to a machine Assent knows nothing about. */
  url: z
    .string()
    .url()
    .refine((value) => {
      const url = new URL(value)
      return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)
    }, 'must be an http:// URL on 127.0.0.1, [::1] or localhost'),
})

export const McpTransportSchema = z.discriminatedUnion('type', [
  McpStdioTransportSchema,
  McpHttpTransportSchema,
])
export type McpTransport = z.infer<typeof McpTransportSchema>

const McpServerInputSchema = z.strictObject({
  id: McpServerIdSchema.refine(
    (id) => id !== BUILT_IN_FILESYSTEM_SERVER_ID,
    `"${BUILT_IN_FILESYSTEM_SERVER_ID}" is Assent's built-in server`,
  ),
  /** What the card and the protected window call the server. */
  name: z.string().trim().min(1).max(80).optional(),
  transport: McpTransportSchema,
  allowed_tools: z.array(McpToolNameSchema).min(1, 'list at least one tool by name'),
  requires_approval: z.boolean().optional(),
  manifest: z.strictObject({ readonly: z.boolean().default(false) }).default({ readonly: false }),
})

/**
 * One configured server, with `requires_approval` settled: it defaults to
 * `!manifest.readonly`, and only a server whose manifest says `readonly:
 * true` may skip consent. A `requires_approval: false` on any other server
 * is refused rather than obeyed, so one edited line cannot silently remove
 * the person from the loop for a server that can write.
 */
export const McpServerConfigSchema = McpServerInputSchema.superRefine((server, context) => {
  if (server.requires_approval === false && !server.manifest.readonly) {
    context.addIssue({
      code: 'custom',
      path: ['requires_approval'],
      message: 'may be false only for a server whose manifest says readonly: true',
    })
  }
}).transform((server) => ({
  ...server,
  name: server.name ?? server.id,
  requires_approval: server.requires_approval ?? !server.manifest.readonly,
}))
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>

export const McpConfigSchema = z
  .strictObject({
    servers: z.array(McpServerConfigSchema).max(64),
  })
  .superRefine((config, context) => {
    const seen = new Set<string>()
    for (const [index, server] of config.servers.entries()) {
      if (seen.has(server.id)) {
        context.addIssue({
          code: 'custom',
          path: ['servers', index, 'id'],
          message: `duplicate server id ${server.id}`,
        })
      }
      seen.add(server.id)
    }
  })
export type McpConfig = z.infer<typeof McpConfigSchema>

export const EMPTY_MCP_CONFIG: McpConfig = Object.freeze({ servers: [] }) as McpConfig
