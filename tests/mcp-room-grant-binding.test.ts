import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Room } from '../src/contracts/room.ts'
import { writeNotesConfig, type NotesFixture } from './support/mcp-gateway-harness.ts'
import { decide, ranUnasked, roomGrants } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * The room's door for the rule tests/mcp-governed-grant-binding.test.ts
 * walks through the gateway: an "always allow" on an MCP tool, or on every
 * tool of its server, given in a room, answers only while mcp.json starts
 * that server as the person was shown it. Each row is one edit of the
 * notes server in mcp.json, the runtime started again on it; the tool's
 * definition stays the same throughout, so only the server's start can
 * tell the rows apart.
 */

type Stdio = { type: 'stdio'; command: string; args: string[]; cwd?: string; env: object }

let harness: RuntimeHarness
let fixture: NotesFixture
let shown: string
const rooms: Record<'allow-always' | 'allow-always-server', Room | undefined> = {
  'allow-always': undefined,
  'allow-always-server': undefined,
}

/** mcp.json with the notes server's start changed by `change`. */
async function startNotesAs(change: (stdio: Stdio) => Stdio): Promise<void> {
  const config = JSON.parse(shown) as { servers: Array<{ id: string; transport: Stdio }> }
  for (const server of config.servers) {
    if (server.id === 'notes') server.transport = change(server.transport)
  }
  await writeFile(fixture.configPath, JSON.stringify(config))
  await harness.restart()
}

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'assent-mcp-room-grant-binding-'))
  fixture = await writeNotesConfig(root)
  shown = await readFile(fixture.configPath, 'utf8')
  await mkdir(join(root, 'another-project'))
  // Another program's path that runs the same server: a link to node.
  await symlink(process.execPath, join(root, 'another-node'))
  harness = await startHarness({ root, mcpConfigPath: fixture.configPath })
  for (const decision of ['allow-always', 'allow-always-server'] as const) {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'mcp notes write_note {"name": "first.txt", "text": "x"}',
    )
    expect((await decide(harness, view, decision)).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    expect(await roomGrants(harness, room.id)).toHaveLength(1)
    rooms[decision] = room
  }
})
afterAll(async () => {
  await harness?.close()
  if (harness) await rm(harness.root, { recursive: true, force: true })
})

const CHANGES: ReadonlyArray<{
  change: string
  started: (stdio: Stdio) => Stdio
  answered: boolean
}> = [
  { change: 'nothing (control)', started: (stdio) => stdio, answered: true },
  {
    change: 'the folder it works in',
    started: (stdio) => ({ ...stdio, cwd: join(harness.root, 'another-project') }),
    answered: false,
  },
  {
    change: 'its command',
    started: (stdio) => ({ ...stdio, command: join(harness.root, 'another-node') }),
    answered: false,
  },
  {
    change: 'its arguments',
    started: (stdio) => ({ ...stdio, args: [...stdio.args, '--root', '/'] }),
    answered: false,
  },
]

describe.each(['allow-always', 'allow-always-server'] as const)('a room grant (%s)', (decision) => {
  it.each(CHANGES)('after mcp.json changes $change', async ({ started, answered }) => {
    await startNotesAs(started)
    const room = rooms[decision]!
    expect(
      await ranUnasked(harness, room.id, 'mcp notes write_note {"name": "later.txt", "text": "y"}'),
    ).toBe(answered)
  })
})
