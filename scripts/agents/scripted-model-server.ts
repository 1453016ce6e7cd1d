import {
  isRecord,
  sseEvent,
  SSE_HEADERS,
  startScriptedHttpServer,
  type RecordedRequestBase,
} from './scripted-server-core.ts'

/**
 * A model for tests and the smoke scenario: the OpenAI Responses API
 * (`POST /v1/responses`, answered as server-sent events) on 127.0.0.1, which
 * plays a script instead of thinking. It scripts only the model. The agent
 * that talks to it (Codex, codex-acp) is the real binary, and whatever the
 * agent runs because of a scripted step really runs.
 *
 * Each model request takes the next step of the script. Every request is
 * recorded, so a test can read what the agent told the model after a step:
 * the command's output, or the agent's note that the person refused it.
 */

/** One answer of the scripted model. */
export type ScriptedModelStep =
  /** Call the agent's shell tool (`exec_command`) with this command line.
   *  With `justification`, the call asks to run outside the agent's sandbox
   *  (Codex's escalation), and the justification becomes the request's
   *  reason. */
  | { type: 'exec'; command: string; justification?: string }
  /** Change files through the agent's patch route: a shell call of
   *  `apply_patch` with the patch as a here-document, which the agent
   *  intercepts and turns into a file change of its own. */
  | { type: 'patch'; patch: string }
  /** Call one of the agent's other tools by name: an MCP tool Codex lists
   *  in the namespace of its server (`mcp__<server>`), with these arguments. */
  | { type: 'tool'; namespace?: string; name: string; arguments: Record<string, unknown> }
  /** Answer with text: the agent's final reply, which ends its turn. */
  | { type: 'reply'; text: string }

/** What the agent sent the model, as received. */
export interface RecordedModelRequest extends RecordedRequestBase {
  /** The step this request was answered with, or null once the script had
   *  run out (then the model answered with `SCRIPT_EXHAUSTED_TEXT`). */
  step: ScriptedModelStep | null
  /** The call id given to the tool call of that step, if it was one. */
  callId: string | null
}

export const SCRIPT_EXHAUSTED_TEXT = 'The scripted model has no further steps.'

/** A patch that adds one file, in the agent's patch language. */
export function addFilePatch(path: string, text: string): string {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n')
  return ['*** Begin Patch', `*** Add File: ${path}`, ...lines.map((l) => `+${l}`), '*** End Patch']
    .join('\n')
    .concat('\n')
}

export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>/v1`: the provider's base URL. */
  readonly baseUrl: string
  readonly requests: readonly RecordedModelRequest[]
  /** Replaces the steps still to be played. */
  script(steps: readonly ScriptedModelStep[]): void
  /** Resolves once `count` model requests have arrived (immediately if they
   *  have), or rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs: number): Promise<void>
  /** The output the agent reported for `callId` in its latest request that
   *  carried one, or undefined if none did. */
  toolOutputFor(callId: string): string | undefined
  close(): Promise<void>
}

export async function startScriptedModelServer(
  steps: readonly ScriptedModelStep[] = [],
): Promise<ScriptedModelServer> {
  let pending = [...steps]
  let callCount = 0
  const server = await startScriptedHttpServer<RecordedModelRequest>(
    (request, response, recorded) => {
      if (request.method !== 'POST' || !recorded.path.endsWith('/responses')) {
        response.writeHead(404, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({ error: { message: `no route ${request.method} ${recorded.path}` } }),
        )
        return null
      }
      const step = pending.shift() ?? null
      const callId = step && step.type !== 'reply' ? `call_scripted_${++callCount}` : null
      const n = server.requests.length + 1
      response.writeHead(200, SSE_HEADERS)
      response.end(sseFor(step, callId, n))
      return { ...recorded, step, callId }
    },
  )
  return {
    baseUrl: `${server.origin}/v1`,
    requests: server.requests,
    script(next) {
      pending = [...next]
    },
    waitForRequests: (count, timeoutMs) => server.waitForRequests(count, timeoutMs),
    toolOutputFor(callId) {
      for (const recorded of [...server.requests].reverse()) {
        const output = findToolOutput(recorded.body, callId)
        if (output !== undefined) return output
      }
      return undefined
    },
    close: () => server.close(),
  }
}

/** The agent sends each earlier tool result back as a `function_call_output`
 *  input item; its `output` is a string or a list of text parts. */
function findToolOutput(body: unknown, callId: string): string | undefined {
  if (!isRecord(body) || !Array.isArray(body.input)) return undefined
  for (const item of body.input) {
    if (!isRecord(item) || item.type !== 'function_call_output' || item.call_id !== callId) continue
    if (typeof item.output === 'string') return item.output
    if (Array.isArray(item.output)) {
      return item.output
        .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
        .join('')
    }
    return JSON.stringify(item.output)
  }
  return undefined
}

function sseFor(step: ScriptedModelStep | null, callId: string | null, n: number): string {
  const responseId = `resp_scripted_${n}`
  const item = outputItem(step, callId, n)
  const usage = {
    input_tokens: 0,
    input_tokens_details: null,
    output_tokens: 0,
    output_tokens_details: null,
    total_tokens: 0,
  }
  return [
    sseEvent('response.created', { type: 'response.created', response: { id: responseId } }),
    sseEvent('response.output_item.done', { type: 'response.output_item.done', item }),
    sseEvent('response.completed', {
      type: 'response.completed',
      response: { id: responseId, usage },
    }),
  ].join('')
}

function outputItem(step: ScriptedModelStep | null, callId: string | null, n: number): unknown {
  if (step === null || step.type === 'reply') {
    const text = step?.text ?? SCRIPT_EXHAUSTED_TEXT
    return {
      type: 'message',
      role: 'assistant',
      id: `msg_scripted_${n}`,
      content: [{ type: 'output_text', text }],
    }
  }
  if (step.type === 'tool') {
    return {
      type: 'function_call',
      call_id: callId,
      ...(step.namespace === undefined ? {} : { namespace: step.namespace }),
      name: step.name,
      arguments: JSON.stringify(step.arguments),
    }
  }
  const args =
    step.type === 'patch'
      ? { cmd: `apply_patch <<'EOF'\n${step.patch}EOF` }
      : step.justification === undefined
        ? { cmd: step.command }
        : {
            cmd: step.command,
            sandbox_permissions: 'require_escalated',
            justification: step.justification,
          }
  return {
    type: 'function_call',
    call_id: callId,
    name: 'exec_command',
    arguments: JSON.stringify(args),
  }
}
