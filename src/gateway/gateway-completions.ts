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
  const values = answer.completion.values.filter((value) => {
    const args = completionJudged(asked, value)
    const named = personOnlyNamed(server, 'completion/complete', args, workspace)
    if (named === null) return true
    log(`assent-gateway: ${server.id} completed ${named.path}, left out: ${named.reason}`)
    return false
  })
  if (values.length === answer.completion.values.length) return answer
  const { total: _hidden, ...completion } = answer.completion
  return { ...answer, completion: { ...completion, values } }
}

/**
 * What of a completion the person-only rule reads: the argument (with
 * `value` in place of what was typed, for a value the server offers), the
 * other arguments, and for a resource template its URI both as written and
 * filled in with them (`expanded`), since the place is the whole URI: a
 * template `file:///w/.{name}` and a value `git/config` name neither
 * `.git` alone, but read `file:///w/.git/config` together.
 */
export function completionJudged(asked: CompletionAsked, value?: string): Record<string, unknown> {
  const argument = value === undefined ? asked.argument : { ...asked.argument, value }
  const { context, template } = asked
  const args: Record<string, unknown> = { argument, ...(context ? { context } : {}), ...template }
  if (template.uri === undefined) return args
  const values = { ...context?.arguments, [argument.name]: argument.value }
  return { ...args, expanded: expandedTemplate(template.uri, values) }
}

/** A URI template's expressions (RFC 6570) whose operator starts a path,
 *  or none: `{name}`, `{+name}`, `{#name}`, `{.name}`, `{/name}`. */
const PATH_EXPRESSION = /\{([+#./]?)([^}]*)\}/g

/** `template` with each path expression filled in from `values` (a name
 *  with no value keeps its expression); a query's (`{?q}`) is left as
 *  written, its values being judged on their own. */
function expandedTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PATH_EXPRESSION, (whole, operator: string, names: string) => {
    const filled = names
      .split(',')
      .map((name) => values[name.replace(/(\*|:\d+)$/, '')])
      .filter((each) => each !== undefined)
    if (filled.length === 0) return whole
    const joiner = operator === '/' || operator === '.' ? operator : ','
    const prefix = operator === '+' ? '' : operator
    return prefix + filled.join(joiner)
  })
}
