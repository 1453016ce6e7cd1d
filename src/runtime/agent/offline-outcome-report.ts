/** What the offline model says once a turn's actions ran: how each tool
 *  call and permission request ended, in the agent's words. */

import type { ActionOutcome, AgentToolCall } from './agent-model.ts'
import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'

/** One line per tool call, in order, each naming the call and saying how it
 *  ended, with the tool's own result in words where it has them; questions
 *  and forms already answered in their own messages are not repeated.
 *  Undefined when there was no tool. */
export function outcomesReport(outcomes: readonly ActionOutcome[]): RuntimeMessage | undefined {
  const lines: RuntimeMessage[] = []
  for (const outcome of outcomes) {
    if (outcome.type === 'permissions') {
      lines.push(describePermission(outcome))
      continue
    }
    if (outcome.type !== 'tool') continue
    const what = describeCall(outcome.call)
    const raw = outcome.result.output.trim()
    const said = outcome.result.message
    switch (outcome.status) {
      case 'succeeded':
        lines.push(
          raw === ''
            ? message('offline.done', { what })
            : message('offline.doneWith', { what, output: said ?? firstLine(raw) }),
        )
        break
      case 'refused':
        lines.push(message('offline.refused', { what, output: said ?? raw }))
        break
      case 'denied':
        // The runner's words name who denied it: the person, the automatic
        // review or the room's policy.
        lines.push(message('offline.denied', { what, output: said ?? raw }))
        break
      case 'expired':
        lines.push(message('offline.expired', { what }))
        break
      default:
        lines.push(message('offline.failed', { what, output: said ?? raw }))
    }
  }
  return lines.length === 0 ? undefined : message('offline.report', { lines })
}

function describePermission(
  outcome: Extract<ActionOutcome, { type: 'permissions' }>,
): RuntimeMessage {
  const { widen } = outcome.request
  const what =
    widen.type === 'write-directory'
      ? message('offline.permissionWrite', { path: widen.path })
      : message('offline.permissionNetwork', { command: widen.argv.join(' ') })
  const output = outcome.result.message ?? outcome.result.output.trim()
  if (outcome.status === 'succeeded') return message('offline.permissionGranted', { what })
  if (outcome.status === 'expired') return message('offline.permissionExpired', { what })
  if (outcome.status === 'refused') return message('offline.permissionRefused', { what, output })
  return message('offline.permissionDenied', { what, output })
}

function describeCall(call: AgentToolCall): RuntimeMessage | string {
  const args = call.arguments
  if (Array.isArray(args.argv)) {
    return message('offline.callRun', { command: args.argv.map(String).join(' ') })
  }
  if (typeof args.path === 'string') {
    return message('offline.callPath', { tool: call.tool, path: args.path })
  }
  return call.tool
}

/** Output can be a whole file; the report names the gist, the tool call in
 *  the timeline keeps the rest. */
function firstLine(text: string): string {
  const [first = ''] = text.split('\n')
  return first.length > 200 ? `${first.slice(0, 200)}…` : first
}
