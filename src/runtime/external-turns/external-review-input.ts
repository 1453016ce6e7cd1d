import type { Turn } from '../../contracts/room.ts'
import type { ReviewInput } from '../policy/reviewer.ts'
import { checkToolAccess } from '../policy/sandbox.ts'
import { pinnedWorkspaceOf } from '../policy/workspace-identity.ts'
import type { ShownAgentRequest } from './agent-request-action.ts'

/** What the approve-for-me reviewer is shown of an external agent's
 *  request: the request whole, as the approval stores it, and the place it
 *  acts, judged inside the workspace or not whatever the room's sandbox. */
export async function reviewInputFor(
  turn: Turn,
  shown: ShownAgentRequest,
  resolvedPaths: string[],
): Promise<ReviewInput> {
  const args = shown.action.arguments
  const firstPath = resolvedPaths[0]
  // The reviewer judges the place, not the mode: inside the workspace
  // whatever the room's sandbox.
  const inside = await checkToolAccess({
    sandboxMode: 'workspace-write',
    effect: 'write',
    paths: shown.paths,
    workspace: turn.workspace,
    agent: { readOnly: false },
    ...pinnedWorkspaceOf(turn),
  })
  return {
    toolName: shown.action.toolName,
    effect: shown.effect,
    destructive: shown.destructive,
    // The built-in rules read a command's argv, a write's path, and the
    // files another tool call names as touched (ACP's locations); a
    // reviewer that reads more (a model) is shown the request whole, as
    // the approval stores it (`action`: an own tool's raw input, every
    // file change with its content), never less than what it allows.
    arguments: {
      action: args,
      ...(typeof args.commandLine === 'string'
        ? { argv: Array.isArray(args.argv) ? args.argv : [args.commandLine] }
        : Array.isArray(args.locations)
          ? { locations: args.locations }
          : firstPath === undefined
            ? {}
            : { path: firstPath }),
    },
    workspace: turn.workspace,
    resolvedPaths,
    insideWorkspace: inside.allowed,
  }
}
