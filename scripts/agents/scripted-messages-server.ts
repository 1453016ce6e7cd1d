import type { ServerResponse } from 'node:http'
import {
  isRecord,
  sseEvent,
  SSE_HEADERS,
  startScriptedHttpServer,
  type RecordedRequestBase,
} from './scripted-server-core.ts'

/**
 * A model for tests and the smoke scenario: Anthropic's Messages API
 * (`POST /v1/messages` with `"stream": true`, answered as server-sent
 * events) on 127.0.0.1, which plays a script instead of thinking. It is the
 * model behind claude-agent-acp, as scripted-model-server.ts is the model
 * behind the Codex agents: the agent is the real one, and whatever it does
 * because of a scripted step really happens.
 *
 * Only the agent's turn requests (those that offer the agent's tools) take
 * a step; the small side requests the agent makes (a title, a check) are
 * answered with a short text and not recorded.
 */

/** One answer of the scripted model. */
export type ScriptedMessagesStep =
  /** Call the agent's `Bash` tool with this command line. */
  | { type: 'bash'; command: string }
  /** Call the agent's `Write` tool: a whole file's new content. */
  | { type: 'write'; path: string; content: string }
  /** Call the agent's `Read` tool (which it runs without asking): the agent
   *  edits only a file it has read. */
  | { type: 'read'; path: string }
  /** Call the agent's `Edit` tool: replace one string in a file. */
  | { type: 'edit'; path: string; oldText: string; newText: string }
  /** Answer with text: the agent's final reply, which ends its turn. */
  | { type: 'reply'; text: string }

export interface RecordedMessagesRequest extends RecordedRequestBase {
  /** The step this request was answered with, or null once the script had
   *  run out (then the model answered with `MESSAGES_SCRIPT_EXHAUSTED`). */
  step: ScriptedMessagesStep | null
  /** The id of the tool use that step became, if it was one. */
  toolUseId: string | null
}

export const MESSAGES_SCRIPT_EXHAUSTED = 'The scripted model has no further steps.'
const SIDE_REQUEST_TEXT = 'ok'

export interface ScriptedMessagesServer {
  /** `http://127.0.0.1:<port>`: the agent's `ANTHROPIC_BASE_URL`. */
  readonly baseUrl: string
  /** The turn requests, in order. */
  readonly requests: readonly RecordedMessagesRequest[]
  /** Replaces the steps still to be played. */
  script(steps: readonly ScriptedMessagesStep[]): void
  waitForRequests(count: number, timeoutMs: number): Promise<void>
  /** What the agent told the model about `toolUseId` in its latest request
   *  that carried a result for it: the result's text, and whether the
   *  agent marked it as an error. */
  toolResultFor(toolUseId: string): { text: string; isError: boolean } | undefined
  close(): Promise<void>
}

/** A turn request offers the agent's tools; a side request offers none. */
function isTurnRequest(body: unknown): boolean {
  return isRecord(body) && Array.isArray(body.tools) && body.tools.length > 0
}

export async function startScriptedMessagesServer(
  steps: readonly ScriptedMessagesStep[] = [],
): Promise<ScriptedMessagesServer> {
  let pending = [...steps]
  let useCount = 0
  let messageCount = 0
  const server = await startScriptedHttpServer<RecordedMessagesRequest>(
    (request, response, recorded) => {
      if (request.method !== 'POST' || !recorded.path.split('?')[0]?.endsWith('/v1/messages')) {
        response.writeHead(404, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({
            type: 'error',
            error: { type: 'not_found_error', message: `no route ${recorded.path}` },
          }),
        )
        return null
      }
      const model = isRecord(recorded.body) ? String(recorded.body.model ?? '') : ''
      const id = `msg_scripted_${++messageCount}`
      const streamed = isRecord(recorded.body) && recorded.body.stream === true
      if (!isTurnRequest(recorded.body)) {
        writeMessage(
          response,
          streamed,
          id,
          model,
          { type: 'reply', text: SIDE_REQUEST_TEXT },
          null,
        )
        return null
      }
      const step = pending.shift() ?? null
      const toolUseId = step && step.type !== 'reply' ? `toolu_scripted_${++useCount}` : null
      writeMessage(response, streamed, id, model, step, toolUseId)
      return { ...recorded, step, toolUseId }
    },
  )
  return {
    baseUrl: server.origin,
    requests: server.requests,
    script(next) {
      pending = [...next]
    },
    waitForRequests: (count, timeoutMs) => server.waitForRequests(count, timeoutMs),
    toolResultFor(toolUseId) {
      for (const recorded of [...server.requests].reverse()) {
        const found = findToolResult(recorded.body, toolUseId)
        if (found !== undefined) return found
      }
      return undefined
    },
    close: () => server.close(),
  }
}

/** The tool the agent offers for a step, and its input. */
function toolUseOf(step: Exclude<ScriptedMessagesStep, { type: 'reply' }>): {
  name: string
  input: Record<string, string>
} {
  switch (step.type) {
    case 'bash':
      return { name: 'Bash', input: { command: step.command, description: 'Run a command' } }
    case 'write':
      return { name: 'Write', input: { file_path: step.path, content: step.content } }
    case 'read':
      return { name: 'Read', input: { file_path: step.path } }
    case 'edit':
      return {
        name: 'Edit',
        input: { file_path: step.path, old_string: step.oldText, new_string: step.newText },
      }
  }
}

/** The content block a step answers with, in the Messages API's shape. */
export function contentBlockFor(
  step: ScriptedMessagesStep | null,
  toolUseId: string | null,
):
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, string> } {
  if (step === null || step.type === 'reply' || toolUseId === null) {
    return { type: 'text', text: step?.type === 'reply' ? step.text : MESSAGES_SCRIPT_EXHAUSTED }
  }
  return { type: 'tool_use', id: toolUseId, ...toolUseOf(step) }
}

function writeMessage(
  response: ServerResponse,
  streamed: boolean,
  id: string,
  model: string,
  step: ScriptedMessagesStep | null,
  toolUseId: string | null,
): void {
  const block = contentBlockFor(step, toolUseId)
  const stopReason = block.type === 'tool_use' ? 'tool_use' : 'end_turn'
  const usage = { input_tokens: 1, output_tokens: 1 }
  if (!streamed) {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [block],
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      }),
    )
    return
  }
  response.writeHead(200, SSE_HEADERS)
  response.end(messageEvents(id, model, block, stopReason).join(''))
}

/** The Messages API's event order for one content block. */
export function messageEvents(
  id: string,
  model: string,
  block: ReturnType<typeof contentBlockFor>,
  stopReason: 'tool_use' | 'end_turn',
): string[] {
  const start =
    block.type === 'tool_use'
      ? { type: 'tool_use', id: block.id, name: block.name, input: {} }
      : { type: 'text', text: '' }
  const delta =
    block.type === 'tool_use'
      ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) }
      : { type: 'text_delta', text: block.text }
  return [
    sseEvent('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    }),
    sseEvent('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: start,
    }),
    sseEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta }),
    sseEvent('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sseEvent('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 1 },
    }),
    sseEvent('message_stop', { type: 'message_stop' }),
  ]
}

/** The agent sends a tool's result back as a `tool_result` block of a user
 *  message; its `content` is a string or a list of text blocks. */
function findToolResult(
  body: unknown,
  toolUseId: string,
): { text: string; isError: boolean } | undefined {
  if (!isRecord(body) || !Array.isArray(body.messages)) return undefined
  for (const message of body.messages) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue
    for (const block of message.content) {
      if (!isRecord(block) || block.type !== 'tool_result' || block.tool_use_id !== toolUseId) {
        continue
      }
      const text =
        typeof block.content === 'string'
          ? block.content
          : Array.isArray(block.content)
            ? block.content
                .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
                .join('')
            : ''
      return { text, isError: block.is_error === true }
    }
  }
  return undefined
}
