import { afterEach, describe, expect, it } from 'vitest'
import {
  addFilePatch,
  SCRIPT_EXHAUSTED_TEXT,
  startScriptedModelServer,
  type ScriptedModelServer,
} from './scripted-model-server.ts'

let server: ScriptedModelServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function post(body: unknown): Promise<unknown[]> {
  const response = await fetch(`${server?.baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify(body),
  })
  expect(response.headers.get('content-type')).toBe('text/event-stream')
  const text = await response.text()
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => JSON.parse(block.split('\n')[1]?.replace(/^data: /, '') ?? 'null'))
}

describe('the scripted model server', () => {
  it('plays its steps in order as Responses API events, and records each request', async () => {
    server = await startScriptedModelServer([
      { type: 'exec', command: 'ls', justification: 'look around' },
      { type: 'patch', patch: addFilePatch('a.txt', 'one\ntwo\n') },
      { type: 'reply', text: 'done' },
    ])
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    const first = await post({ input: [] })
    expect(first.map((e) => (e as { type: string }).type)).toEqual([
      'response.created',
      'response.output_item.done',
      'response.completed',
    ])
    expect((first[1] as { item: unknown }).item).toEqual({
      type: 'function_call',
      call_id: 'call_scripted_1',
      name: 'exec_command',
      arguments: JSON.stringify({
        cmd: 'ls',
        sandbox_permissions: 'require_escalated',
        justification: 'look around',
      }),
    })
    const second = await post({ input: [] })
    const patchArgs = JSON.parse((second[1] as { item: { arguments: string } }).item.arguments)
    expect(patchArgs.cmd).toBe(
      "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch\nEOF",
    )
    const third = await post({
      input: [{ type: 'function_call_output', call_id: 'call_scripted_1', output: 'listing' }],
    })
    expect((third[1] as { item: { content: unknown } }).item.content).toEqual([
      { type: 'output_text', text: 'done' },
    ])
    const fourth = await post({ input: [] })
    expect(JSON.stringify(fourth[1])).toContain(SCRIPT_EXHAUSTED_TEXT)

    expect(server.requests.map((r) => r.callId)).toEqual([
      'call_scripted_1',
      'call_scripted_2',
      null,
      null,
    ])
    expect(server.requests[3]?.step).toBeNull()
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test')
    expect(server.toolOutputFor('call_scripted_1')).toBe('listing')
    expect(server.toolOutputFor('call_scripted_2')).toBeUndefined()
    await server.waitForRequests(4, 1000)
    await expect(server.waitForRequests(5, 50)).rejects.toThrow('the model got 4 of 5 requests')
  })

  it('answers anything but a POST to /responses with 404', async () => {
    server = await startScriptedModelServer([])
    const response = await fetch(`${server.baseUrl}/models`)
    expect(response.status).toBe(404)
    expect(server.requests).toHaveLength(0)
  })
})
