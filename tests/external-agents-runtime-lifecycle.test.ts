import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RESTART_EXPIRY_REASON } from '../src/contracts/approval.ts'
import { AGENT_PROCESSES_FILE_NAME } from '../src/runtime/external-agents/agent-process-ledger.ts'
import { WITHDRAWN_REASON } from '../src/runtime/external-turns/external-turn-asker.ts'
import { addFilePatch } from '../scripts/agents/scripted-model-server.ts'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { AGENT_WAIT_MS } from './support/external-agent-testbed.ts'
import {
  ACP_AGENT_ID,
  agentRoom,
  processRunning,
  useAgentRuntime,
  askedApproval,
  CODEX_AGENT_ID,
  turnEnded,
} from './support/external-agent-runtime.ts'
import { roomApprovals } from './support/policy-helpers.ts'
import { pastExpiry, send, SHORT_APPROVAL_TTL_MS } from './support/room-helpers.ts'
import { eventually } from './support/runtime-harness.ts'

/**
 * What happens to a real agent's request that nobody answers: it expires
 * and the agent is told no; a runtime that stops or crashes ends the
 * agent's turn and the agent itself, and what was asked never runs.
 */
const bed = useAgentRuntime({ approvalTtlMs: SHORT_APPROVAL_TTL_MS })
const { agents, inWorkspace } = bed

/** The pids of the agent processes the runtime has running now. */
function agentPids(): number[] {
  const ledger = JSON.parse(
    readFileSync(join(bed.runtime.harness.dataDir, AGENT_PROCESSES_FILE_NAME), 'utf8'),
  ) as { processes: Array<{ pid: number }> }
  return ledger.processes.map((entry) => entry.pid)
}

describe.skipIf(!agents)('a real agent’s request nobody answers', () => {
  it(
    'expires, Codex is told the person rejected it, and nothing runs',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      bed.runtime.model.script([
        { type: 'exec', command: 'touch codex-expired.txt' },
        { type: 'reply', text: 'nobody answered' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      await pastExpiry(view)
      const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('done')
      expect(existsSync(inWorkspace('codex-expired.txt'))).toBe(false)
      expect(timeline.toolCalls.find((c) => c.approvalId === view.approval.id)).toMatchObject({
        status: 'expired',
        result: { code: 'approval_expired' },
      })
      const told = bed.runtime.model.requests.map((r) => JSON.stringify(r.body))
      expect(told.some((body) => body.includes('rejected by user'))).toBe(true)
    },
  )

  it(
    'expires, the ACP agent is told no and ends its turn, and nothing is written',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
      bed.runtime.model.script([
        { type: 'patch', patch: addFilePatch('acp-expired.txt', 'never\n') },
        { type: 'reply', text: 'nobody answered' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      await pastExpiry(view)
      const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('interrupted')
      expect(existsSync(inWorkspace('acp-expired.txt'))).toBe(false)
      expect(timeline.toolCalls.find((c) => c.approvalId === view.approval.id)).toMatchObject({
        status: 'expired',
      })
    },
  )
})

describe.skipIf(!agents)('a runtime that stops or crashes while an agent waits', () => {
  it(
    'ends the turn and the agent when it stops: the request is withdrawn and never runs',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      bed.runtime.model.script([{ type: 'exec', command: 'touch codex-restart.txt' }])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      const [agent] = agentPids()
      expect(agent !== undefined && processRunning(agent)).toBe(true)

      await bed.runtime.harness.restart()
      const { turn } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('interrupted')
      const [approval] = (await roomApprovals(bed.runtime.harness, roomId)).filter(
        (a) => a.id === view.approval.id,
      )
      expect(approval).toMatchObject({ status: 'expired', reason: WITHDRAWN_REASON })
      expect(processRunning(agent ?? 0)).toBe(false)
      expect(existsSync(inWorkspace('codex-restart.txt'))).toBe(false)
    },
  )

  it(
    'ends an agent that outlived a crashed runtime when the next one starts',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
      bed.runtime.model.script([{ type: 'patch', patch: addFilePatch('acp-crash.txt', 'never\n') }])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      const [agent] = agentPids()
      const runtimePid = bed.runtime.harness.supervisor.pid
      if (agent === undefined || runtimePid === undefined) throw new Error('nothing is running')

      process.kill(runtimePid, 'SIGKILL')
      await eventually(
        () => (bed.runtime.harness.supervisor.current === undefined ? true : undefined),
        'the supervisor to see the runtime die',
      )
      // codex-acp does not exit when its client goes away; started in its
      // containment (sandbox/agent-containment.ts), it ends with the
      // runtime that started it. One that outlives it (started as it is,
      // in full access) is ended by the next runtime before it says ready
      // (agent-process-ledger.ts): either way, none is left by the time
      // the next runtime answers.
      await bed.runtime.harness.supervisor.start()
      await expect.poll(() => processRunning(agent), { timeout: WAIT_TIMEOUT_MS }).toBe(false)
      const { turn } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('interrupted')
      const [approval] = (await roomApprovals(bed.runtime.harness, roomId)).filter(
        (a) => a.id === view.approval.id,
      )
      expect(approval).toMatchObject({ status: 'expired', reason: RESTART_EXPIRY_REASON })
      expect(existsSync(inWorkspace('acp-crash.txt'))).toBe(false)
      // A message after the restart starts a new agent.
      bed.runtime.model.script([{ type: 'reply', text: 'back again' }])
      const next = await send(bed.runtime.harness, roomId, 'hello again')
      expect((await turnEnded(bed.runtime, roomId, next)).turn.status).toBe('done')
    },
  )
})
