import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/sdk/types.js'
import type { McpServer } from '../runtime/mcp/mcp-connection.ts'
import { personOnlyNamed, privateReadNamed } from '../runtime/mcp/mcp-call-judgment.ts'
import { refuseIfPersonOnly } from '../runtime/mcp/governed-mcp-action.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import { shownUri } from '../runtime/mcp/mcp-result-uris.ts'

/** What a completion was asked with, as the gateway judged it: the
 *  argument so far, the other arguments, and for a resource template its
 *  URI (`{ uri }`, or nothing for a prompt). */
export interface CompletionAsked {
  argument: CompleteRequest['params']['argument']
  context: CompleteRequest['params']['context']
  template: { uri?: string }
}

/**
 * Refuses a completion, before the server is asked, that names a
 * person-only path (a server completing `.git/` lists what is in it) or
 * a place outside the workspace (`completionPlaces`): nobody is asked
 * about a completion, and a read of either would ask the person, so a
 * completion of `/home/ada/Documents/` would list, unasked, a folder
 * nobody let the agent look into.
 */
export function refuseCompletion(server: McpServer, asked: CompletionAsked, workspace: string) {
  refuseIfPersonOnly(server, 'completion/complete', completionJudged(asked), workspace)
  const outside = privateReadNamed(
    server,
    'completion/complete',
    completionPlaces(asked),
    workspace,
  )
  if (outside !== null) {
    throw new McpRefusal(
      'not_allowed',
      `assent-gateway does not pass completion/complete there: ${outside}, and nobody is asked about a completion`,
    )
  }
}

/**
 * A server's completion with every value that names a person-only path
 * or a place outside the workspace left out (and logged), each value
 * judged as the argument it would become, in the request that was judged.
 * A completion passes unasked, so its values must tell the agent no more
 * than a list does: a server that completes `x` with
 * `.git/hooks/pre-commit`, `~/.ssh/id_ed25519` or `/home/ada/diary.txt`
 * would list, unasked, what is in a folder only the person may look into,
 * which a completion of `.git/` or of `/home/ada/` is refused for. Once
 * something is left out the server's `total` goes too, since it would
 * count what was hidden.
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
    if (named !== null) {
      log(`assent-gateway: ${server.id} completed ${named.path}, left out: ${named.reason}`)
      return false
    }
    const places = completionPlaces(asked, value)
    const outside = privateReadNamed(server, 'completion/complete', places, workspace)
    if (outside === null) return true
    // The value as the server wrote it, quoted and spelled in ASCII: a
    // line break or a terminal's escape of a server's never reaches the log.
    log(`assent-gateway: ${server.id} completed ${shownUri(value)}, left out: ${outside}`)
    return false
  })
  if (values.length === answer.completion.values.length) return answer
  const { total: _hidden, ...completion } = answer.completion
  return { ...answer, completion: { ...completion, values } }
}

/**
 * What of a completion may name a place outside the workspace, as a read
 * would be judged (private-read-approval.ts): the argument's value (or
 * `value`, one the server offers), the other arguments' values, and for
 * a `file:` template the file it names filled in with them. The words of
 * a template of another scheme (`note://{topic}`) are not places: a read
 * of one asks the person whatever it names, so judged as a place every
 * completion of it would be refused, while its values, which a server
 * may take for paths, are still judged.
 */
export function completionPlaces(asked: CompletionAsked, value?: string): Record<string, unknown> {
  const typed = value ?? asked.argument.value
  const others = asked.context?.arguments ?? {}
  const uri = asked.template.uri
  if (uri === undefined || !/^file:/i.test(uri))
    return { values: [typed, ...Object.values(others)] }
  const expanded = expandedTemplate(uri, { ...others, [asked.argument.name]: typed })
  return { values: [typed, ...Object.values(others)], expanded }
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
