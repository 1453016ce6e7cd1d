// What assent-gateway adds to an MCP call: the same tool of the same server
// called directly and through the gateway, alternating, from one SDK client
// each over stdio, as an agent calls them. Two kinds of call: one the policy
// runs without asking (a read-only manifest), and one an "always allow"
// grant answers (the gateway asks the runtime, which finds the grant).

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { z } from 'zod'
import { RoomSchema } from '../../src/contracts/room.ts'
import { GATEWAY_AGENT_ID } from '../../src/runtime/domain/agent-preset.ts'
import { RUNTIME_READY_TIMEOUT_MS } from '../test-timing.ts'
import { startBenchRuntime, type BenchRuntime } from './bench-runtime.ts'
import { decide, residentSamples, roomApprovals } from './runtime-fixtures.ts'
import { percentile } from './stats.ts'

const GATEWAY_ENTRY = fileURLToPath(new URL('../../src/gateway/main.ts', import.meta.url))
const NOTES_SERVER = fileURLToPath(
  new URL('../../tests/fixtures/mcp-notes-server.ts', import.meta.url),
)

export interface GatewayBenchOptions {
  rounds: number
  /** Calls of each kind, direct and through the gateway, per round. */
  callsPerRound: number
  /** Calls of each kind made before any is timed. */
  warmupCalls: number
  log: (line: string) => void
}

export interface GatewayBenchResult {
  /** Per round: p50 through the gateway − p50 direct, for a call the
   *  policy runs without asking. */
  unaskedAddedP50Ms: number[]
  /** Per round: the same at p99. */
  unaskedAddedP99Ms: number[]
  /** Per round: p50 through the gateway − p50 direct, for a call a grant
   *  answers. */
  grantedAddedP50Ms: number[]
  directP50Ms: number[]
  /** The gateway's resident memory, started and idle (it has listed its
   *  tools and made no call yet). */
  idleRssBytes: number[]
  callsPerRound: number
  warmupCalls: number
}

type Call = { name: string; arguments: Record<string, unknown> }

async function connect(command: string, args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'ignore' })
  const client = new Client({ name: 'assent-bench', version: '1.0.0' })
  await client.connect(transport)
  return { client, pid: transport.pid }
}

/** Times one call; a call that fails is a broken measurement. */
async function timed(client: Client, call: Call): Promise<number> {
  const started = performance.now()
  const result = await client.callTool(call)
  const elapsed = performance.now() - started
  if (result.isError) throw new Error(`${call.name} failed: ${JSON.stringify(result.content)}`)
  return elapsed
}

/** The first gated call through the gateway, allowed "always" as a person
 *  would, so the grant answers every later one. */
async function grantWrites(runtime: BenchRuntime, gateway: Client): Promise<void> {
  const first = gateway.callTool({
    name: 'notes__write_note',
    arguments: { name: 'granted.txt', text: 'first' },
  })
  for (;;) {
    const { rooms } = await runtime.client.request(
      z.object({ rooms: z.array(RoomSchema) }),
      'GET',
      '/v1/rooms',
    )
    const room = rooms.find((candidate) => candidate.agentId === GATEWAY_AGENT_ID)
    const pending = room
      ? (await roomApprovals(runtime, room.id)).find((approval) => approval.status === 'pending')
      : undefined
    if (room && pending) {
      const { actionDigest } = await runtime.client.getApproval(pending.id)
      await decide(runtime, { id: pending.id, roomId: room.id, actionDigest }, 'allow-always')
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await first
}

/** `calls` timings of each of two calls, made in turn, the first of
 *  each pair alternating between them. */
async function alternating(
  calls: number,
  [first, second]: [() => Promise<number>, () => Promise<number>],
): Promise<{ first: number[]; second: number[] }> {
  const timed = { first: [] as number[], second: [] as number[] }
  for (let call = 0; call < calls; call += 1) {
    if (call % 2 === 0) {
      timed.first.push(await first())
      timed.second.push(await second())
    } else {
      timed.second.push(await second())
      timed.first.push(await first())
    }
  }
  return timed
}

export async function measureGatewayOverhead(
  options: GatewayBenchOptions,
): Promise<GatewayBenchResult> {
  const runtime = await startBenchRuntime({
    approvalTtlMs: 120_000,
    readyTimeoutMs: RUNTIME_READY_TIMEOUT_MS,
  })
  const closers: Array<() => Promise<void>> = []
  try {
    const notesDir = join(runtime.root, 'notes')
    await mkdir(notesDir, { recursive: true })
    const env = { ...(process.env as Record<string, string>), NOTES_DIR: notesDir }
    const stdio = { type: 'stdio', command: process.execPath, args: [NOTES_SERVER], env }
    const configPath = join(runtime.root, 'mcp.json')
    await writeFile(
      configPath,
      JSON.stringify({
        servers: [
          { id: 'notes', transport: stdio, allowed_tools: ['write_note'] },
          {
            id: 'docs',
            transport: stdio,
            allowed_tools: ['read_note'],
            manifest: { readonly: true },
          },
        ],
      }),
    )
    await writeFile(join(notesDir, 'bench.txt'), 'a note to read')

    const direct = await connect(process.execPath, [NOTES_SERVER], env)
    closers.push(() => direct.client.close())
    const gateway = await connect(
      process.execPath,
      [
        GATEWAY_ENTRY,
        '--config',
        configPath,
        '--data-dir',
        runtime.dataDir,
        '--workspace',
        runtime.workspace,
      ],
      env,
    )
    closers.push(() => gateway.client.close())
    await gateway.client.listTools()
    if (gateway.pid === null) throw new Error('the gateway has no pid')
    const idleRssBytes = await residentSamples(gateway.pid)
    options.log(`gateway: idle resident memory ${(idleRssBytes[0]! / 1024 / 1024).toFixed(1)} MiB`)
    await grantWrites(runtime, gateway.client)

    const read = (client: Client, name: string) =>
      timed(client, { name, arguments: { name: 'bench.txt' } })
    let writes = 0
    const write = (client: Client, name: string) =>
      timed(client, { name, arguments: { name: `w${++writes % 8}.txt`, text: 'x' } })
    // The first calls of each warm the connections, the runtime's caches
    // and the JIT: a gateway in front of a working agent has made
    // hundreds of calls within its first minutes, and the figures are for
    // that gateway, not for one still compiling its code.
    for (let index = 0; index < options.warmupCalls; index += 1) {
      await read(direct.client, 'read_note')
      await read(gateway.client, 'docs__read_note')
      await write(direct.client, 'write_note')
      await write(gateway.client, 'notes__write_note')
    }

    const result: GatewayBenchResult = {
      unaskedAddedP50Ms: [],
      unaskedAddedP99Ms: [],
      grantedAddedP50Ms: [],
      directP50Ms: [],
      idleRssBytes,
      callsPerRound: options.callsPerRound,
      warmupCalls: options.warmupCalls,
    }
    for (let round = 0; round < options.rounds; round += 1) {
      // Each kind in its own phase: a granted call's record is finished
      // after its result is returned, and that work would otherwise land
      // in the timing of the read that follows it. Within a phase, which
      // goes first alternates, so neither always follows the other.
      const reads = await alternating(options.callsPerRound, [
        () => read(direct.client, 'read_note'),
        () => read(gateway.client, 'docs__read_note'),
      ])
      const writes = await alternating(options.callsPerRound, [
        () => write(direct.client, 'write_note'),
        () => write(gateway.client, 'notes__write_note'),
      ])
      const directP50 = percentile(reads.first, 50)
      const unaskedP50 = percentile(reads.second, 50)
      const grantedP50 = percentile(writes.second, 50)
      const directWriteP50 = percentile(writes.first, 50)
      result.directP50Ms.push(directP50)
      result.unaskedAddedP50Ms.push(unaskedP50 - directP50)
      result.unaskedAddedP99Ms.push(percentile(reads.second, 99) - percentile(reads.first, 99))
      result.grantedAddedP50Ms.push(grantedP50 - directWriteP50)
      options.log(
        `gateway: round ${round + 1}: read direct p50 ${directP50.toFixed(2)} ms, through the gateway ${unaskedP50.toFixed(2)} ms; ` +
          `granted write direct ${directWriteP50.toFixed(2)} ms, through the gateway ${grantedP50.toFixed(2)} ms`,
      )
    }
    return result
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined)
    await runtime.close()
  }
}
