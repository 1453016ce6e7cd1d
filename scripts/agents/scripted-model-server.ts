import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

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
export interface RecordedModelRequest {
  path: string
  headers: Record<string, string | string[] | undefined>
  body: unknown
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

const MAX_REQUEST_BYTES = 16 * 1024 * 1024

export async function startScriptedModelServer(
  steps: readonly ScriptedModelStep[] = [],
): Promise<ScriptedModelServer> {
  let pending = [...steps]
  let callCount = 0
  const requests: RecordedModelRequest[] = []
  const waiters = new Set<() => void>()

  const server = createServer((request, response) => {
    void readBody(request).then(
      (text) => answer(request, response, text),
      () => response.writeHead(413).end(),
    )
  })

  function answer(request: IncomingMessage, response: ServerResponse, text: string): void {
    const path = request.url ?? ''
    if (request.method !== 'POST' || !path.endsWith('/responses')) {
      response.writeHead(404, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message: `no route ${request.method} ${path}` } }))
      return
    }
    let body: unknown = null
    try {
      body = JSON.parse(text)
    } catch {
      // Recorded as null: a test that reads it will say what it expected.
    }
    const step = pending.shift() ?? null
    const callId = step && step.type !== 'reply' ? `call_scripted_${++callCount}` : null
    requests.push({ path, headers: request.headers, body, step, callId })
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    response.end(sseFor(step, callId, requests.length))
    for (const wake of [...waiters]) wake()
  }

  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(next) {
      pending = [...next]
    },
    waitForRequests(count, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (requests.length < count) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve()
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(
            new Error(`the model got ${requests.length} of ${count} requests in ${timeoutMs} ms`),
          )
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    toolOutputFor(callId) {
      for (const recorded of [...requests].reverse()) {
        const output = findToolOutput(recorded.body, callId)
        if (output !== undefined) return output
      }
      return undefined
    },
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_REQUEST_BYTES) {
        request.destroy()
        reject(new Error('request too large'))
        return
      }
      chunks.push(chunk)
    })
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
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

function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}
