import { AGENT_COMMAND_TOOL, readAgentRequest } from '../../src/contracts/agent-request.ts'
import type { ApprovalRecord } from '../../src/contracts/approval.ts'
import type { Grant } from '../../src/contracts/room.ts'
import { agentGrantScope } from '../../src/runtime/policy/agent-grant-scope.ts'

let ids = 0

/**
 * The grant an allow-always on an external agent's request stood for
 * before the rules that now refuse one: its scope alone. For a command,
 * the exact line in the folder the window showed, as one was stored
 * before external agents' commands were left to one run at a time
 * (agent-grant-scope.ts); for a file, what `agentGrantScope` gives. Such
 * grants may still be in a person's store: no door may answer with them.
 */
export function grantStoredBeforeTheRules(approval: ApprovalRecord): Grant | undefined {
  if (approval.decision !== 'allow-always') return undefined
  const request = readAgentRequest(approval.toolName, approval.arguments)
  const draft =
    request?.tool === AGENT_COMMAND_TOOL
      ? {
          scope: 'command' as const,
          toolName: AGENT_COMMAND_TOOL,
          command: [request.args.commandLine],
          path: request.args.realCwd ?? request.args.cwd,
        }
      : agentScopeDraft(approval)
  return {
    id: `stored-grant-${(ids += 1)}`,
    roomId: approval.roomId,
    ...draft,
    approvalId: approval.id,
    createdAt: 1,
  }
}

function agentScopeDraft(approval: ApprovalRecord) {
  const scope = agentGrantScope(approval)
  if (!scope?.ok) throw new Error(`no scope: ${JSON.stringify(scope)}`)
  return scope.draft
}
