import { execFileSync } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setMode, toolCallsOf } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'

/** `work`, or a failure naming `what` once the wait ceiling passes: a
 *  runtime that stops answering leaves a request open forever. */
async function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const ceiling = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the runtime did not answer: ${what}`)),
      WAIT_TIMEOUT_MS,
    )
  })
  try {
    return await Promise.race([work, ceiling])
  } finally {
    clearTimeout(timer)
  }
}

// A named pipe in the workspace, opened for reading, blocks that open in
// one of libuv's four pool threads until someone writes to it. Reads run
// unasked in every mode but full access, so four such reads (an agent's,
// in any rooms) would take the whole pool: every other room's file tools,
// and the fsync every decision waits for before a tool runs
// (durability.ts), would stop. read_file (readCapped in read-tools.ts)
// looks at what the entry is before it opens it, opens it without waiting
// (O_NONBLOCK) and looks again: what is not a regular file is refused
// (`not_a_file`) without blocking on it.

let harness: RuntimeHarness
const pipes: string[] = []

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  // Each blocked open ends once a writer opens the pipe.
  for (const pipe of pipes) {
    try {
      closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK))
    } catch {
      // No reader waiting on it.
    }
  }
  await harness?.close()
})

describe('reads of named pipes in the workspace', () => {
  it('are refused as not files, and other rooms keep working', async () => {
    const { workspace } = harness
    await writeFile(join(workspace, 'inside.txt'), 'an ordinary file\n')
    for (let i = 0; i < 4; i += 1) {
      const pipe = join(workspace, `pipe${i}`)
      execFileSync('mkfifo', [pipe])
      pipes.push(pipe)
    }
    const piped: Array<{ roomId: string; turnId: string }> = []
    for (let i = 0; i < 4; i += 1) {
      const room = await createRoom(harness)
      await setMode(harness, room.id, 'plan')
      piped.push({ roomId: room.id, turnId: await send(harness, room.id, `read pipe${i}`) })
    }
    // Another room reads an ordinary file.
    const other = await within(createRoom(harness), 'another room to be made')
    const turnId = await within(send(harness, other.id, 'read inside.txt'), 'its message')
    await within(turnSettled(harness, other.id, turnId), 'its read of an ordinary file')
    const [call] = await toolCallsOf(harness, other.id, turnId)
    expect(call).toMatchObject({ status: 'succeeded' })
    for (const { roomId, turnId: pipedTurn } of piped) {
      await within(turnSettled(harness, roomId, pipedTurn), 'a read of a pipe to settle')
      const [pipeCall] = await toolCallsOf(harness, roomId, pipedTurn)
      expect(pipeCall?.status).not.toBe('succeeded')
    }
  }, 180_000)
})
