import { existsSync } from 'node:fs'
import { readFile, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  decide,
  roomApprovals,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

// A command the person allows runs contained by the OS, and the approval
// they decide on says how: through a real runtime (HTTP, the SQLite store,
// consent tokens) and a real bubblewrap.

const HAS_BWRAP = await bubblewrapRequired()

const ESCAPING_COMMAND = `run sh -c 'echo x > ../escape.txt; echo y > inside.txt'`

describe.runIf(HAS_BWRAP)('an allowed command in ask-for-approval', () => {
  let harness: RuntimeHarness
  beforeAll(async () => {
    harness = await startHarness()
  })
  afterAll(async () => {
    await harness?.close()
  })

  it('is shown contained to the workspace, and writes only inside it', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, ESCAPING_COMMAND)
    const view = await waitForPendingApproval(harness, room.id, turnId)
    expect(view.action.containment).toEqual({
      contained: true,
      writableRoots: [await realpath(harness.workspace)],
      network: false,
      secretsHidden: true,
    })
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await readFile(join(harness.workspace, 'inside.txt'), 'utf8')).toBe('y\n')
    expect(existsSync(join(harness.root, 'escape.txt'))).toBe(false)
    const [call] = await toolCallsOf(harness, room.id, turnId)
    expect(call).toMatchObject({ status: 'succeeded' })
  })

  it('runs uncontained in full access, where it reaches outside the workspace', async () => {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'full-access')
    const turnId = await send(harness, room.id, `run sh -c 'echo x > ../escape-full.txt'`)
    await turnSettled(harness, room.id, turnId)
    expect(existsSync(join(harness.root, 'escape-full.txt'))).toBe(true)
  })
})

describe('where no sandbox can start', () => {
  let harness: RuntimeHarness
  beforeAll(async () => {
    harness = await startInProcessRuntime({
      commandSandbox: new CommandSandbox({
        env: { ...process.env, PATH: '/nonexistent-assent-bin' },
        assentPrivate: [],
        platform: 'linux',
        systemBinFolders: [],
      }),
    })
  })
  afterAll(async () => {
    await harness?.close()
  })

  it('refuses the command before asking anyone, naming what to install', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'run /usr/bin/touch uncontained.txt')
    await turnSettled(harness, room.id, turnId)
    const [call] = await toolCallsOf(harness, room.id, turnId)
    expect(call).toMatchObject({
      status: 'refused',
      approvalId: null,
      result: { code: 'sandbox_unavailable' },
    })
    expect(call?.result?.output).toContain('apt-get install bubblewrap')
    expect(await roomApprovals(harness, room.id)).toEqual([])
    expect(existsSync(join(harness.workspace, 'uncontained.txt'))).toBe(false)
  })
})
