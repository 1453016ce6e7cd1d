import type { FileTarget } from '../../contracts/file-target.ts'
import { checkToolAccess } from '../policy/sandbox.ts'
import { pinnedWorkspaceOf } from '../policy/workspace-identity.ts'
import type { ToolDefinition, ToolResult } from '../tools/tool-types.ts'
import type { CallScope } from './approval-wait.ts'
import { refusal, targetChange } from './call-settlement.ts'
import { widenedRoots } from './permission-request-runner.ts'

/**
 * What a built-in tool call was judged on, however it was answered: by the
 * mode (a read that runs unasked), by a grant, by the reviewer, the
 * webhook or the person. The call runs only on this; `ToolCallRunner`
 * resolves the paths once more right before the tool runs and refuses
 * (`target_changed`) when they lead elsewhere now, before anything is
 * touched, so a link swapped after the judgment never carries the call to
 * a place nobody judged.
 */
export interface Judged {
  /** The real paths the sandbox check resolved when the call was judged,
   *  in the order of the tool's `targetPaths`. */
  paths: readonly string[]
  /** The target observed then, where there is one: bound into a call's
   *  approval, or observed before a grant answered it. The tool refuses
   *  to act on any other file (safe-file-ops.ts). */
  target?: FileTarget
}

/** A refusal when the call, judged as `judged`, now resolves to `now`, or
 *  to another file than the one observed; null when it is still what was
 *  judged. */
export async function judgedChange(
  judged: Judged,
  now: readonly string[],
): Promise<ToolResult | null> {
  if (!samePaths(judged.paths, now)) {
    return refusal(
      `The path now resolves to ${now.join(', ') || 'nothing'}, not ${judged.paths.join(', ') || 'nothing'} as it was judged; it did not run.`,
      'target_changed',
    )
  }
  if (judged.target === undefined) return null
  return targetChange(judged.target, now[0])
}

function samePaths(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i])
}

/** The sandbox's and the agent's ceilings' check of a call, with the real
 *  paths it resolves: once when the call is judged, and again right
 *  before it runs. */
export function checkCallAccess(
  { turn, agent, widenings }: CallScope,
  tool: ToolDefinition<unknown>,
  args: unknown,
) {
  return checkToolAccess({
    sandboxMode: turn.policy.sandboxMode,
    effect: tool.effect,
    paths: tool.targetPaths(args),
    workspace: turn.workspace,
    agent: {
      readOnly: agent.toolPolicy.readOnly,
      ...(agent.allowedRepositoryRoots
        ? { allowedRepositoryRoots: agent.allowedRepositoryRoots }
        : {}),
    },
    extraWritableRoots: widenedRoots(widenings),
    ...pinnedWorkspaceOf(turn),
  })
}
