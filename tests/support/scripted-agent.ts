/**
 * A stand-in for a misbehaving agent, for the tests of what the adapters do
 * with messages a real agent does not send on demand: malformed requests,
 * requests Assent must refuse, settings other than the ones asked for, a
 * mode switch. It speaks just enough of either protocol over its stdio to
 * reach a turn, then plays `plan.onTurn` and records every answer it gets.
 *
 * Run as: node scripted-agent.ts <codex-app-server|acp> <plan.json> <answers.jsonl>
 * The real agents are tested with the real binaries; this covers only the
 * hostile cases.
 */
import { appendFileSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

export interface ScriptedAgentPlan {
  /** Replaces fields of Codex's `thread/start` answer (the applied settings). */
  threadStart?: Record<string, unknown>
  /** Sent in order once the turn starts: requests wait for their answer. */
  onTurn: Array<
    | { request: { method: string; params: unknown } }
    | { notification: { method: string; params: unknown } }
    | { raw: string }
    /** Sent without waiting for its answer (under `id`, when given, which
     *  two requests may share), whose answer is recorded whenever it comes. */
    | { leftOpen: { method: string; params: unknown; id?: number } }
    | { sleepMs: number }
  >
}

const [protocol, planFile, answersFile] = process.argv.slice(2) as [string, string, string]
const plan = JSON.parse(readFileSync(planFile, 'utf8')) as ScriptedAgentPlan
const acp = protocol === 'acp'
const SESSION = 'scripted-session'
const TURN = 'scripted-turn'
let nextId = 100
const waiting = new Map<number, Array<(message: Record<string, unknown>) => void>>()

function await_(id: number, resolve: (message: Record<string, unknown>) => void): void {
  waiting.set(id, [...(waiting.get(id) ?? []), resolve])
}

function send(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(acp ? { jsonrpc: '2.0', ...message } : message)}\n`)
}

function request(method: string, params: unknown): Promise<Record<string, unknown>> {
  const id = nextId++
  return new Promise((resolve) => {
    await_(id, resolve)
    send({ id, method, params })
  })
}

async function playTurn(promptId: unknown): Promise<void> {
  for (const step of plan.onTurn) {
    if ('raw' in step) process.stdout.write(step.raw)
    else if ('notification' in step) send(step.notification)
    else if ('sleepMs' in step) await new Promise((resolve) => setTimeout(resolve, step.sleepMs))
    else if ('leftOpen' in step) {
      const { method, params } = step.leftOpen
      const id = step.leftOpen.id ?? nextId++
      await_(id, (answer) => {
        appendFileSync(answersFile, `${JSON.stringify({ method, answer })}\n`)
      })
      send({ id, method, params })
    } else {
      const answer = await request(step.request.method, step.request.params)
      appendFileSync(answersFile, `${JSON.stringify({ method: step.request.method, answer })}\n`)
    }
  }
  if (acp) send({ id: promptId, result: { stopReason: 'end_turn' } })
  else {
    send({
      method: 'turn/completed',
      params: { threadId: SESSION, turn: { id: TURN, status: 'completed', error: null } },
    })
  }
}

function answer(message: Record<string, unknown>): void {
  const { id, method } = message
  const params = (message.params ?? {}) as Record<string, unknown>
  switch (method) {
    case 'initialize':
      send({ id, result: acp ? { protocolVersion: 1 } : { userAgent: 'scripted-agent' } })
      return
    case 'thread/start':
      send({
        id,
        result: {
          thread: { id: SESSION },
          approvalPolicy: params.approvalPolicy,
          approvalsReviewer: params.approvalsReviewer,
          // What Codex 0.169 reports for each sandbox it was asked for.
          sandbox: {
            'read-only': { type: 'readOnly', networkAccess: false },
            'workspace-write': {
              type: 'workspaceWrite',
              writableRoots: [],
              networkAccess: false,
              excludeTmpdirEnvVar: false,
              excludeSlashTmp: false,
            },
            'danger-full-access': { type: 'dangerFullAccess' },
          }[String(params.sandbox)],
          cwd: params.cwd,
          ...plan.threadStart,
        },
      })
      return
    case 'session/new':
      send({
        id,
        result: {
          sessionId: SESSION,
          modes: { currentModeId: 'auto', availableModes: [{ id: 'read-only' }, { id: 'auto' }] },
        },
      })
      return
    case 'session/set_mode':
      send({ id, result: {} })
      return
    case 'turn/start':
      send({ id, result: { turn: { id: TURN } } })
      void playTurn(id)
      return
    case 'session/prompt':
      void playTurn(id)
      return
    case 'turn/interrupt':
      send({ id, result: {} })
      return
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line) as Record<string, unknown>
  if (message.method === undefined && typeof message.id === 'number') {
    const [first, ...rest] = waiting.get(message.id) ?? []
    first?.(message)
    if (rest.length > 0) waiting.set(message.id, rest)
    else waiting.delete(message.id)
    return
  }
  if (message.id !== undefined) answer(message)
})
