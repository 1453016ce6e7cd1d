import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { englishText, message } from '../src/contracts/runtime-message.ts'
import { AGENT_WAIT_MS } from './support/external-agent-testbed.ts'
import {
  ACP_AGENT_ID,
  agentRoom,
  CODEX_AGENT_ID,
  CODEX_AGENTS,
  messagesOf,
  nextApproval,
  processRunning,
  turnEnded,
  useAgentRuntime,
} from './support/external-agent-runtime.ts'
import { decide, roomApprovals, setMode } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, send } from './support/room-helpers.ts'
import { eventually } from './support/runtime-harness.ts'

/**
 * The person stops an external agent's turn (`POST /v1/turns/:turnId/stop`,
 * the workbench's "Stop the agent"). An agent may never answer, or act for
 * as long as it likes: without a stop it held its room's turn for ever, and
 * went on acting. Stopped, its process group ends with everything it
 * started, what it waits for is withdrawn (a token minted for it decides
 * nothing), the turn ends interrupted with why, and the room's next
 * message starts the agent afresh. The real agents, each in a real runtime
 * process; only the model is scripted.
 */
const bed = useAgentRuntime()
const { agents, inWorkspace } = bed

const STOPPED_NOTE = englishText(message('external.stoppedByPerson'))

function stop(turnId: string) {
  return bed.runtime.harness.client.raw('POST', `/v1/turns/${turnId}/stop`)
}

/** A command that says its process id, then sleeps for as long as a test
 *  could wait: only a stop ends it. */
function sleeper(pidFile: string): string {
  return `echo $$ > ${pidFile} && exec sleep 600`
}

async function pidIn(file: string): Promise<number> {
  const text = await eventually(
    () => (existsSync(inWorkspace(file)) ? readFileSync(inWorkspace(file), 'utf8') : undefined),
    `the command to write ${file}`,
  )
  return Number(text.trim())
}

describe.skipIf(!agents)('an external agent’s turn the person stops', () => {
  it.each(CODEX_AGENTS)(
    '$agent acting: its command ends with it, and the next message starts it afresh',
    { timeout: AGENT_WAIT_MS * 2 },
    async ({ agentId }) => {
      const roomId = await agentRoom(bed.runtime, agentId)
      // Full access: the agent runs the command without asking anyone, so
      // nothing but the stop ends the turn.
      await setMode(bed.runtime.harness, roomId, 'full-access')
      const pidFile = `sleeper-${agentId}.pid`
      bed.runtime.model.script([
        { type: 'exec', command: sleeper(pidFile) },
        { type: 'reply', text: 'slept' },
      ])
      const turnId = await send(bed.runtime.harness, roomId, 'sleep')
      const pid = await pidIn(pidFile)
      expect(processRunning(pid)).toBe(true)

      const stopped = await stop(turnId)
      expect(stopped.status).toBe(202)
      const ended = await turnEnded(bed.runtime, roomId, turnId)
      expect(ended.turn.status).toBe('interrupted')
      expect(messagesOf(ended.timeline, turnId, 'system')).toContain(STOPPED_NOTE)
      await eventually(() => (processRunning(pid) ? undefined : true), 'the command to end')
      // Ended: a second stop has nothing to stop.
      expect((await stop(turnId)).body).toMatchObject({ code: 'turn_not_running' })

      bed.runtime.model.script([{ type: 'reply', text: 'here again' }])
      const next = await send(bed.runtime.harness, roomId, 'are you there')
      const answered = await turnEnded(bed.runtime, roomId, next)
      expect(answered.turn.status).toBe('done')
      expect(messagesOf(answered.timeline, next, 'agent')).toContain('here again')
    },
  )

  it(
    'Codex waiting for the person: its approval is withdrawn, and allowing it now runs nothing',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      await setMode(bed.runtime.harness, roomId, 'ask-for-approval')
      bed.runtime.model.script([
        { type: 'exec', command: 'touch asked.txt', justification: 'needs to write' },
        { type: 'reply', text: 'done' },
      ])
      const turnId = await send(bed.runtime.harness, roomId, 'write it')
      const view = await nextApproval(bed.runtime, roomId, turnId)

      expect((await stop(turnId)).status).toBe(202)
      const ended = await turnEnded(bed.runtime, roomId, turnId)
      expect(ended.turn.status).toBe('interrupted')
      expect(messagesOf(ended.timeline, turnId, 'system')).toContain(STOPPED_NOTE)
      const approval = (await roomApprovals(bed.runtime.harness, roomId)).find(
        (each) => each.id === view.approval.id,
      )
      expect(approval?.status).toBe('expired')
      expect((await decide(bed.runtime.harness, view, 'allow-once')).status).not.toBe(200)
      expect(existsSync(inWorkspace('asked.txt'))).toBe(false)
    },
  )

  it(
    'a turn waiting behind another: it ends as it would begin, and the agent never hears it',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
      await setMode(bed.runtime.harness, roomId, 'full-access')
      bed.runtime.model.script([
        { type: 'exec', command: sleeper('queued-first.pid') },
        { type: 'reply', text: 'slept' },
      ])
      const first = await send(bed.runtime.harness, roomId, 'sleep first')
      await pidIn('queued-first.pid')
      const heard = bed.runtime.model.requests.length
      const second = await send(bed.runtime.harness, roomId, 'then this')

      expect((await stop(second)).status).toBe(202)
      expect((await stop(first)).status).toBe(202)
      for (const turnId of [first, second]) {
        const ended = await turnEnded(bed.runtime, roomId, turnId)
        expect(ended.turn.status).toBe('interrupted')
        expect(messagesOf(ended.timeline, turnId, 'system')).toContain(STOPPED_NOTE)
      }
      expect(bed.runtime.model.requests.length).toBe(heard)
    },
  )
})

describe.skipIf(!agents)('a stop the runtime refuses', () => {
  it('for the built-in agent, whose waiting turn ends when its approval is decided', async () => {
    const room = await createRoom(bed.runtime.harness)
    const view = await pendingApprovalFor(bed.runtime.harness, room.id, 'write stop.txt x')
    const refused = await stop(view.approval.turnId)
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ code: 'turn_not_stoppable' })
    expect((await decide(bed.runtime.harness, view, 'deny')).status).toBe(200)
  })

  it('for a turn the runtime does not know', async () => {
    const refused = await stop('no-such-turn')
    expect(refused.status).toBe(404)
    expect(refused.body).toMatchObject({ code: 'unknown_turn' })
  })
})
