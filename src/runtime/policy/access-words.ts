import type { ToolEffect } from '../../contracts/policy-axes.ts'
import {
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'

const ACCESS_MESSAGES: Readonly<Record<string, RuntimeMessageCode>> = {
  read_only_agent: 'access.readOnlyAgent',
  sandbox_read_only: 'access.readOnlyRoom',
  outside_workspace: 'access.outsideWorkspace',
  outside_agent_roots: 'access.outsideAgentRoots',
  invalid_path: 'access.invalidPath',
}

const EFFECT_VERBS: Readonly<Record<ToolEffect, RuntimeMessageCode>> = {
  read: 'verb.read',
  write: 'verb.writeFiles',
  execute: 'verb.runCommands',
  network: 'verb.useNetwork',
}

/** The sandbox's refusal in words: its own where it has them, else its
 *  code's sentence, naming the paths as they were asked for. */
export function refusedAccessWords(
  access: { code: string; message?: RuntimeMessage },
  effect: ToolEffect,
  paths: readonly string[],
): RuntimeMessage {
  return (
    access.message ??
    message(ACCESS_MESSAGES[access.code] ?? 'access.invalidPath', {
      action: message(EFFECT_VERBS[effect]),
      path: paths.join(', '),
    })
  )
}
