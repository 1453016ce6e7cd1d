import { realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import type { SandboxMode, ToolEffect } from '../../contracts/policy-axes.ts'
import type { AgentCeilings } from '../domain/agent-preset.ts'
import type { RuntimeMessage } from '../../contracts/runtime-message.ts'
import { isInsideRoot, resolveInsideRealRoot, resolveTarget } from './path-containment.ts'
import { checkWorkspaceIdentity, type WorkspaceIdentity } from './workspace-identity.ts'

export type { AgentCeilings } from '../domain/agent-preset.ts'

export type AccessRefusalCode =
  | 'sandbox_read_only'
  | 'outside_workspace'
  | 'outside_agent_roots'
  | 'read_only_agent'
  | 'invalid_path'
  | 'workspace_moved'

export type AccessCheck =
  | {
      allowed: true
      paths: string[]
      /** A write was let out of the workspace by one of `extraWritableRoots`:
       *  a grant for the workspace must not answer for it. */
      widened?: true
    }
  | {
      allowed: false
      code: AccessRefusalCode
      reason: string
      /** The reason in words, where the code alone does not say it. */
      message?: RuntimeMessage
    }

export interface ToolAccessInput {
  sandboxMode: SandboxMode
  effect: ToolEffect
  /** As the tool asked for them: absolute, or relative to the workspace. For
   *  a command this is its working directory. */
  paths: readonly string[]
  workspace: string
  agent: AgentCeilings
  /** Real directories where this turn may also write, each allowed by the
   *  person for this turn only (a permission request). They widen the
   *  workspace confinement of writes, nothing else: the sandbox mode, the
   *  agent's ceilings and the approval policy still apply. */
  extraWritableRoots?: readonly string[]
  /** The identity of the folder `workspace` must still be (the turn's
   *  frozen `workspaceIdentity`): checked before anything else. */
  pinnedWorkspace?: WorkspaceIdentity
}

/**
 * Decides whether a tool call may touch its paths under the room's sandbox
 * mode and the agent's ceilings, and resolves them to real paths.
 *
 * On success `paths` holds the resolved real paths, in input order. Callers
 * must act on those and never re-resolve the raw input: re-resolving would
 * let a symlink swapped in after this check redirect the act.
 *
 * - a read-only agent may only read;
 * - `read-only` refuses writes, commands and network calls;
 * - `workspace-write` confines writes and commands (their working directory)
 *   to the workspace; reads may go wherever the agent's ceilings allow;
 * - `external-sandbox` is enforced exactly as `workspace-write`: this process
 *   cannot verify that an outside sandbox exists or what it allows, so it
 *   assumes none does rather than widen on a claim;
 * - `danger-full-access` allows any path, still within the agent's ceilings.
 *
 * Network calls are confined like writes wherever they name paths: a path a
 * network tool names is most likely a place it will write to.
 */
export async function checkToolAccess(input: ToolAccessInput): Promise<AccessCheck> {
  const { sandboxMode, effect, paths, workspace, agent } = input

  // A workspace swapped for a link, or for another folder of the same name,
  // since the room was made confines nothing: every path below would be
  // judged against a folder the person never chose.
  if (input.pinnedWorkspace !== undefined) {
    const identity = checkWorkspaceIdentity(input.pinnedWorkspace)
    if (!identity.ok) {
      return {
        allowed: false,
        code: identity.code,
        reason: identity.reason,
        message: identity.message,
      }
    }
  }

  if (agent.readOnly && effect !== 'read') {
    return refuse('read_only_agent', `this agent is read-only and cannot ${verb(effect)}`)
  }
  if (sandboxMode === 'read-only' && effect !== 'read') {
    return refuse('sandbox_read_only', `the room is read-only and cannot ${verb(effect)}`)
  }

  let realWorkspace: string
  try {
    realWorkspace = realpathSync.native(workspace)
  } catch {
    // Without a real workspace nothing can be confined to it, and relative
    // paths have nothing to be relative to.
    return refuse('invalid_path', `the workspace ${workspace} cannot be resolved`)
  }

  const confinedToWorkspace =
    effect !== 'read' && (sandboxMode === 'workspace-write' || sandboxMode === 'external-sandbox')

  const resolved: string[] = []
  let widened = false
  for (const requested of paths) {
    if (confinedToWorkspace) {
      const inside = await resolveInsideRealRoot(realWorkspace, requested)
      if (!inside.ok) {
        const extra =
          inside.code === 'outside_root' && effect === 'write'
            ? await insideExtraRoot(requested, realWorkspace, input.extraWritableRoots ?? [])
            : null
        if (extra === null) {
          const code = inside.code === 'outside_root' ? 'outside_workspace' : 'invalid_path'
          return refuse(code, inside.reason)
        }
        widened = true
        resolved.push(extra)
        continue
      }
      resolved.push(inside.path)
    } else {
      const target = await resolveTarget(requested, realWorkspace)
      if (!target.ok) return refuse('invalid_path', `${requested}: ${target.reason}`)
      resolved.push(target.path)
    }
  }

  if (agent.allowedRepositoryRoots !== undefined) {
    const realRoots = realRootsOf(agent.allowedRepositoryRoots)
    for (const p of resolved) {
      if (!realRoots.some((root) => isInsideRoot(root, p))) {
        return refuse('outside_agent_roots', `${p} is outside the directories this agent may use`)
      }
    }
  }

  return widened
    ? { allowed: true, paths: resolved, widened: true }
    : { allowed: true, paths: resolved }
}

/**
 * The real path `requested` names, if it lies inside one of the turn's
 * extra writable roots, or null. The target is resolved to its real path
 * (every part of it that exists), so a root swapped for a symlink after the
 * person's decision, or a folder above it, contains nothing: the write
 * resolves to where the link points, outside the root. A root that is no
 * longer a directory (removed since) contains nothing either, rather than
 * being created again by the write.
 */
async function insideExtraRoot(
  requested: string,
  realWorkspace: string,
  roots: readonly string[],
): Promise<string | null> {
  const target = await resolveTarget(requested, realWorkspace)
  // Fails closed: a path that cannot be resolved is inside nothing.
  if (!target.ok) return null
  for (const root of roots) {
    if (isInsideRoot(root, target.path) && isDirectory(root)) return target.path
  }
  return null
}

function isDirectory(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory()
  } catch {
    // Fails closed: a root that cannot be looked at holds nothing.
    return false
  }
}

/** A root that is relative or cannot be resolved is dropped, not guessed
 *  at: it then contains nothing, which can only narrow what the agent may
 *  touch. */
function realRootsOf(roots: readonly string[]): string[] {
  const out: string[] = []
  for (const root of roots) {
    if (!path.isAbsolute(root)) continue
    try {
      out.push(realpathSync.native(root))
    } catch {
      continue
    }
  }
  return out
}

function refuse(code: AccessRefusalCode, reason: string): AccessCheck {
  return { allowed: false, code, reason }
}

function verb(effect: ToolEffect): string {
  if (effect === 'write') return 'write files'
  if (effect === 'execute') return 'run commands'
  if (effect === 'network') return 'use the network'
  return 'read'
}
