import { mkdir, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide, roomApprovals, toolCallsOf } from './support/policy-helpers.ts'
import { RecordingModel } from './support/recording-model.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'

// docs/policy-and-modes.md, permission requests, "Refused without asking
// anyone": "… a folder that holds credentials, shell start-up files or is
// inside a .git folder (sensitive_path)". A folder that holds them (the
// home folder above all) is looked through, not only judged by its name:
// everything in it the table does not know would be writable for the turn.

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startInProcessRuntime({ model: new RecordingModel() })
})
afterAll(async () => {
  await harness?.close()
})

/** How a `permit write <folder>` turn went: refused with a code, or asked
 *  (then denied by the person, so nothing widens). */
async function permit(folder: string): Promise<{ refused?: string; asked: boolean }> {
  const room = await createRoom(harness)
  const turnId = await send(harness, room.id, `permit write ${folder}`)
  const outcome = await eventually(async () => {
    const pending = (await roomApprovals(harness, room.id)).find((a) => a.status === 'pending')
    if (pending) return { pending }
    const [call] = await toolCallsOf(harness, room.id, turnId)
    return call?.status === 'refused' ? { call } : undefined
  }, `permit write ${folder} to ask or be refused`)
  if ('pending' in outcome && outcome.pending) {
    const view = await harness.client.getApproval(outcome.pending.id)
    expect((await decide(harness, view, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    return { asked: true }
  }
  await turnSettled(harness, room.id, turnId)
  return { refused: outcome.call?.result?.code, asked: false }
}

describe('a permission request for a folder that holds credentials and start-up files', () => {
  let home: string
  beforeAll(async () => {
    home = join(harness.root, 'someone')
    await mkdir(join(home, '.ssh'), { recursive: true })
    await writeFile(join(home, '.ssh', 'id_ed25519'), 'KEY')
    await writeFile(join(home, '.bashrc'), 'alias ll="ls -l"\n')
    await writeFile(join(home, '.git-credentials'), 'https://u:t@example.com\n')
  })

  it('control: its .ssh is refused without asking anyone', async () => {
    expect(await permit(join(home, '.ssh'))).toEqual({ refused: 'sensitive_path', asked: false })
  })

  it('is refused without asking anyone (sensitive_path), not put to the person', async () => {
    expect(await permit(home)).toEqual({ refused: 'sensitive_path', asked: false })
  })

  it('control: a folder that holds only a repository of its own is put to the person', async () => {
    const project = join(harness.root, 'other-project')
    await mkdir(join(project, '.git', 'hooks'), { recursive: true })
    await writeFile(join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n')
    await writeFile(join(project, 'lib.c'), 'int x;\n')
    expect(await permit(project)).toEqual({ asked: true })
  })

  it('the person’s own home folder is refused without asking anyone', async () => {
    const result = await permit(homedir())
    expect(result.asked).toBe(false)
    expect(['sensitive_path', 'too_broad']).toContain(result.refused)
  })
})
