import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import { englishText, message } from '../src/contracts/runtime-message.ts'
import { AGENT_WAIT_MS } from './support/external-agent-testbed.ts'
import {
  agentRoom,
  CODEX_AGENT_ID,
  CODEX_AGENTS,
  messagesOf,
  nextApproval,
  turnEnded,
  useAgentRuntime,
} from './support/external-agent-runtime.ts'
import { decide, setMode } from './support/policy-helpers.ts'
import { send } from './support/room-helpers.ts'
import { eventually } from './support/runtime-harness.ts'

/**
 * An external agent started for a full-access room runs its commands
 * without asking Assent (Codex under `never`, codex-acp in its own
 * `full-access` mode): nothing reaches Assent for it to judge under a
 * narrower mode. A person who narrows the room while such a turn runs must
 * not see the agent go on acting with the reach they just took back: the
 * agent is stopped, and what it would have done next never runs. Nor does
 * a message sent before the narrowing, waiting for its turn behind the one
 * running, start the agent with the wider settings it was sent under. The
 * real agents, each in a real runtime process; only the model is scripted.
 */
const bed = useAgentRuntime()
const { agents, inWorkspace } = bed

const NARROWER: readonly PermissionMode[] = ['plan', 'ask-for-approval']
/** Whose step runs after the narrowing: the acting turn's next one, or the
 *  first of a turn sent before the narrowing and waiting behind it. */
const WHEN = ['the acting turn', 'a turn sent before'] as const

const ROWS = CODEX_AGENTS.flatMap((row) =>
  NARROWER.flatMap((to) => WHEN.map((next) => ({ ...row, to, next }))),
)

const STOPPED_NOTE = englishText(message('external.stoppedNarrowed'))

describe.skipIf(!agents)('a full-access room narrowed while its external agent acts', () => {
  it.each(ROWS)(
    '$agent narrowed to $to: $next runs nothing unasked',
    { timeout: AGENT_WAIT_MS * 2 },
    async ({ agentId, to, next }) => {
      const roomId = await agentRoom(bed.runtime, agentId)
      await setMode(bed.runtime.harness, roomId, 'full-access')
      const tag = `${agentId}-${to}-${next === 'the acting turn' ? 'same' : 'queued'}`
      const started = `started-${tag}.txt`
      const after = `after-${tag}.txt`
      bed.runtime.model.script([
        // Long enough for the person to narrow the room while it runs.
        { type: 'exec', command: `touch ${started} && sleep 3 && echo slept` },
        // The acting turn's next step, or (once it is stopped) the waiting
        // turn's first.
        { type: 'exec', command: `touch ${after} && echo touched` },
        { type: 'reply', text: 'done' },
      ])
      const acting = await send(bed.runtime.harness, roomId, 'go')
      await eventually(
        () => (existsSync(inWorkspace(started)) ? true : undefined),
        'the first command to start',
      )
      const waiting =
        next === 'a turn sent before' ? await send(bed.runtime.harness, roomId, 'and then') : null

      await setMode(bed.runtime.harness, roomId, to)

      const ended = await turnEnded(bed.runtime, roomId, acting)
      expect(ended.turn.status).toBe('interrupted')
      expect(messagesOf(ended.timeline, acting, 'system')).toContain(STOPPED_NOTE)
      if (waiting !== null) {
        // Started under the narrower mode: in plan its request is refused
        // unasked; in ask-for-approval Codex asks the person, who says no,
        // and codex-acp's read-only sandbox fails the write, nobody asked.
        if (to === 'ask-for-approval' && agentId === CODEX_AGENT_ID) {
          const view = await nextApproval(bed.runtime, roomId, waiting)
          expect((await decide(bed.runtime.harness, view, 'deny')).status).toBe(200)
        }
        await turnEnded(bed.runtime, roomId, waiting)
      }
      expect(existsSync(inWorkspace(after))).toBe(false)
    },
  )
})
