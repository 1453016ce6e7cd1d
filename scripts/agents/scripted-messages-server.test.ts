import { afterEach, describe, expect, it } from 'vitest'
import {
  MESSAGES_SCRIPT_EXHAUSTED,
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from './scripted-messages-server.ts'

let server: ScriptedMessagesServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const TOOLS = [{ name: 'Bash' }, { name: 'Write' }]

async function post(body: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${server?.baseUrl}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test' },
    body: JSON.stringify({ stream: true, model: 'claude-test', ...body }),
  })
  expect(response.headers.get('content-type')).toBe('text/event-stream')
  const blocks = (await response.text()).split('\n\n').filter(Boolean)
  return blocks.map((block) => {
    const [event, data] = block.split('\n')
    const parsed = JSON.parse(data?.replace(/^data: /, '') ?? 'null') as Record<string, unknown>
    // Each event names its type twice, as the Messages API does.
    expect(event).toBe(`event: ${String(parsed.type)}`)
    return parsed
  })
}

describe('the scripted Messages API server', () => {
  it('plays its steps in order as Messages API events, and records each turn request', async () => {
    server = await startScriptedMessagesServer([
      { type: 'bash', command: 'ls' },
      { type: 'write', path: '/w/a.txt', content: 'one\n' },
      { type: 'edit', path: '/w/a.txt', oldText: 'one', newText: 'two' },
      { type: 'read', path: '/w/a.txt' },
      { type: 'reply', text: 'done' },
    ])
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const first = await post({ tools: TOOLS, messages: [] })
    expect(first.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    expect(first[1]?.content_block).toEqual({
      type: 'tool_use',
      id: 'toolu_scripted_1',
      name: 'Bash',
      input: {},
    })
    expect(first[2]?.delta).toEqual({
      type: 'input_json_delta',
      partial_json: JSON.stringify({ command: 'ls', description: 'Run a command' }),
    })
    expect(first[4]?.delta).toMatchObject({ stop_reason: 'tool_use' })

    const second = await post({ tools: TOOLS, messages: [] })
    expect(second[1]?.content_block).toMatchObject({ name: 'Write', id: 'toolu_scripted_2' })
    expect(JSON.parse(String((second[2]?.delta as { partial_json: string }).partial_json))).toEqual(
      {
        file_path: '/w/a.txt',
        content: 'one\n',
      },
    )
    const third = await post({ tools: TOOLS, messages: [] })
    expect(JSON.parse(String((third[2]?.delta as { partial_json: string }).partial_json))).toEqual({
      file_path: '/w/a.txt',
      old_string: 'one',
      new_string: 'two',
    })
    const read = await post({ tools: TOOLS, messages: [] })
    expect(read[1]?.content_block).toMatchObject({ name: 'Read', id: 'toolu_scripted_4' })

    // A side request (no tools offered) takes no step and is not recorded.
    const side = await post({ messages: [] })
    expect(side[2]?.delta).toEqual({ type: 'text_delta', text: 'ok' })

    const fourth = await post({
      tools: TOOLS,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_scripted_1',
              content: [{ type: 'text', text: 'listing' }],
            },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_scripted_2',
              content: 'refused',
              is_error: true,
            },
          ],
        },
      ],
    })
    expect(fourth[1]?.content_block).toEqual({ type: 'text', text: '' })
    expect(fourth[2]?.delta).toEqual({ type: 'text_delta', text: 'done' })
    expect(fourth[4]?.delta).toMatchObject({ stop_reason: 'end_turn' })
    const fifth = await post({ tools: TOOLS, messages: [] })
    expect(fifth[2]?.delta).toEqual({ type: 'text_delta', text: MESSAGES_SCRIPT_EXHAUSTED })

    expect(server.requests.map((r) => r.toolUseId)).toEqual([
      'toolu_scripted_1',
      'toolu_scripted_2',
      'toolu_scripted_3',
      'toolu_scripted_4',
      null,
      null,
    ])
    expect(server.requests[5]?.step).toBeNull()
    expect(server.requests[0]?.headers['x-api-key']).toBe('sk-ant-test')
    expect(server.toolResultFor('toolu_scripted_1')).toEqual({ text: 'listing', isError: false })
    expect(server.toolResultFor('toolu_scripted_2')).toEqual({ text: 'refused', isError: true })
    expect(server.toolResultFor('toolu_scripted_3')).toBeUndefined()
    await server.waitForRequests(6, 1000)
    await expect(server.waitForRequests(7, 50)).rejects.toThrow('the model got 6 of 7 requests')
  })

  it('answers anything but a POST to /v1/messages with 404', async () => {
    server = await startScriptedMessagesServer([{ type: 'reply', text: 'never' }])
    const response = await fetch(`${server.baseUrl}/v1/models`)
    expect(response.status).toBe(404)
    expect(server.requests).toHaveLength(0)
  })
})
