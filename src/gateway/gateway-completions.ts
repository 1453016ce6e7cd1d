import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/sdk/types.js'
import type { McpServer } from '../runtime/mcp/mcp-connection.ts'
import { personOnlyNamed } from '../runtime/mcp/mcp-call-judgment.ts'

/** What a completion was asked with, as the gateway judged it: the
 *  argument so far, the other arguments, and for a resource template its
 *  URI (`{ uri }`, or nothing for a prompt). */
export interface CompletionAsked {
  argument: CompleteRequest['params']['argument']
  context: CompleteRequest['params']['context']
  template: { uri?: string }
}

/**
 * A server's completion with every value that names a person-only path
 * left out (and logged), each value judged as the argument it would
 * become, in the request that was judged. A completion passes unasked, so
 * its values must tell the agent no more than a list does: a server that
 * completes `x` with `.git/hooks/pre-commit` or `~/.ssh/id_ed25519` would
 * list, unasked, what is in a folder only the person may look into, which
 * a completion of `.git/` is refused for. Once something is left out the
 * server's `total` goes too, since it would count what was hidden.
 */
export function completionShown(
  server: McpServer,
  asked: CompletionAsked,
  answer: CompleteResult,
  workspace: string,
  log: (line: string) => void,
): CompleteResult {
  const { argument, context, template } = asked
  const values = answer.completion.values.filter((value) => {
    const args = { argument: { ...argument, value }, ...(context ? { context } : {}), ...template }
    const named = personOnlyNamed(server, 'completion/complete', args, workspace)
    if (named === null) return true
    log(`assent-gateway: ${server.id} completed ${named.path}, left out: ${named.reason}`)
    return false
  })
  if (values.length === answer.completion.values.length) return answer
  const { total: _hidden, ...completion } = answer.completion
  return { ...answer, completion: { ...completion, values } }
}
