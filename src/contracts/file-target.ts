import { z } from 'zod'

const DecimalSchema = z.string().regex(/^(0|[1-9][0-9]{0,19})$/)

/**
 * The file a write or a delete acts on, as the runtime observed it when it
 * opened the approval: the real path, and either "does not exist" or the
 * file's identity (device and inode, as decimal text because they may not
 * fit a double), its type and its number of names. For a write that
 * replaces a file, also the SHA-256 of the content being replaced, the
 * content the person's preview was computed against.
 *
 * It is part of the canonical action, so the consent token is bound to it;
 * the runtime observes the target again right before it acts and refuses
 * the call when it is no longer this file.
 */
export const FileTargetSchema = z.discriminatedUnion('exists', [
  z.strictObject({
    path: z.string().min(1),
    exists: z.literal(false),
  }),
  z.strictObject({
    path: z.string().min(1),
    exists: z.literal(true),
    type: z.enum(['file', 'directory', 'symlink', 'other']),
    device: DecimalSchema,
    inode: DecimalSchema,
    bornNs: DecimalSchema,
    links: z.number().int().min(0),
    contentSha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
  }),
])
export type FileTarget = z.infer<typeof FileTargetSchema>
