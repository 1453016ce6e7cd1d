import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { RpcError } from '../domain/json-rpc-error.ts'
import { MAX_AGENT_LINE_BYTES, NdjsonRpcPeer, type RpcPeerHandlers } from './ndjson-rpc-peer.ts'

function peerWith(jsonrpc: '2.0' | null, onRequest?: RpcPeerHandlers['onRequest']) {
  const fromAgent = new PassThrough()
  const toAgent = new PassThrough()
  const written: Record<string, unknown>[] = []
  toAgent.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
      written.push(JSON.parse(line))
  })
  const seen = { notifications: [] as string[], errors: [] as string[], closed: [] as string[] }
  const peer = new NdjsonRpcPeer(fromAgent, toAgent, jsonrpc, {
    onRequest: onRequest ?? (async () => ({ ok: true })),
    onNotification: (method) => seen.notifications.push(method),
    onProtocolError: (message) => seen.errors.push(message),
    onClosed: (reason) => seen.closed.push(reason.message),
  })
  const send = (text: string) => fromAgent.write(text)
  return { peer, written, seen, send }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('the ndjson JSON-RPC peer', () => {
  it('writes the version field only in the JSON-RPC 2.0 dialect', async () => {
    const codex = peerWith(null)
    const acp = peerWith('2.0')
    codex.peer.notify('initialized')
    acp.peer.notify('session/cancel', { sessionId: 's' })
    await tick()
    expect(codex.written).toEqual([{ method: 'initialized' }])
    expect(acp.written).toEqual([
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } },
    ])
  })

  it('parses a result with its schema and rejects one that does not fit, naming the field', async () => {
    const { peer, send } = peerWith(null)
    const good = peer.request('a', {}, z.looseObject({ id: z.string() }))
    const bad = peer.request('b', {}, z.looseObject({ thread: z.looseObject({ id: z.string() }) }))
    send('{"id":1,"result":{"id":"x","extra":1}}\n{"id":2,"result":{"thread":{"id":7}}}\n')
    await expect(good).resolves.toEqual({ id: 'x', extra: 1 })
    await expect(bad).rejects.toThrow("b: the agent's answer is not usable: thread.id")
  })

  it('assembles a message split across reads and answers requests, errors included', async () => {
    const { written, send } = peerWith('2.0', async (method) => {
      if (method === 'nope') throw new RpcError(-32601, 'nope is not supported')
      return { fine: true }
    })
    send('{"jsonrpc":"2.0","id":"r1","meth')
    send('od":"ok","params":{}}\n{"jsonrpc":"2.0","id":9,"method":"nope"}\n')
    await tick()
    await tick()
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 'r1', result: { fine: true } },
      { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'nope is not supported' } },
    ])
  })

  it('reports what is not a message it asked for, and acts on none of it', async () => {
    const { seen, written, send } = peerWith(null)
    send('not json\n[1,2]\n{"id":42,"result":{}}\n\n{"method":"turn/completed","params":{}}\n')
    await tick()
    expect(seen.errors).toHaveLength(3)
    expect(seen.notifications).toEqual(['turn/completed'])
    expect(written).toEqual([])
  })

  it('closes on a line longer than the limit and fails every pending request', async () => {
    const { peer, seen, send } = peerWith(null)
    const pending = peer.request('initialize', {}, z.unknown())
    const chunk = 'x'.repeat(1024 * 1024)
    for (let sent = 0; sent <= MAX_AGENT_LINE_BYTES; sent += chunk.length) send(chunk)
    await expect(pending).rejects.toThrow(`longer than ${MAX_AGENT_LINE_BYTES} bytes`)
    expect(seen.closed).toHaveLength(1)
    await expect(peer.request('again', {}, z.unknown())).rejects.toThrow('longer than')
  })

  it('fails pending requests when the agent closes its output', async () => {
    const fromAgent = new PassThrough()
    const closed: string[] = []
    const peer = new NdjsonRpcPeer(fromAgent, new PassThrough(), null, {
      onRequest: async () => null,
      onNotification: () => {},
      onProtocolError: () => {},
      onClosed: (reason) => closed.push(reason.message),
    })
    const pending = peer.request('thread/start', {}, z.unknown())
    fromAgent.end()
    await expect(pending).rejects.toThrow('the agent closed its output')
    expect(closed).toEqual(['the agent closed its output'])
  })
})
