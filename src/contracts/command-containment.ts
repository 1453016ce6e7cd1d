import { z } from 'zod'

/**
 * What the operating system lets an allowed command do, as the runtime
 * will start it: part of a command's canonical action, so the line the
 * protected window draws from it is covered by the action digest and
 * cannot be drawn from anything the renderer or the agent says.
 *
 * - `contained`: the command runs in the OS sandbox. It may change files
 *   only in `writableRoots` (none under a read-only room), never reaches
 *   the network, and sees the person's credential folders and Assent's own
 *   data as empty.
 * - not contained: the command runs with every right the person's account
 *   has, because the room is in full access or because the runtime was
 *   started with the explicit setting that lets commands run uncontained
 *   where no sandbox can start.
 */
export const CommandContainmentSchema = z.discriminatedUnion('contained', [
  z.strictObject({
    contained: z.literal(true),
    writableRoots: z.array(z.string().min(1).max(4_096)).max(64),
    network: z.literal(false),
    secretsHidden: z.literal(true),
  }),
  z.strictObject({
    contained: z.literal(false),
    why: z.enum(['full-access', 'uncontained-setting']),
  }),
])
export type CommandContainment = z.infer<typeof CommandContainmentSchema>
