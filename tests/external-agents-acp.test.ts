import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AcpSessionModes } from '../src/contracts/agents-config.ts'
import type { ExternalDecision } from '../src/runtime/external-agents/external-agent-port.ts'
import { AcpClient } from '../src/runtime/external-agents/acp-client.ts'
import { addFilePatch, type ScriptedModelStep } from '../scripts/agents/scripted-model-server.ts'
import {
  AGENT_WAIT_MS,
  answered,
  realAgentsOrSkip,
  ScriptedAsker,
  useAgentSessions,
  writeCodexAllowRules,
  writeCodexNotify,
  expectNotifyRefusedUnlessFullAccess,
  type ExternalAgentTestbed,
} from './support/external-agent-testbed.ts'

/**
 * A real ACP agent (the pinned codex-acp) behind Assent's ACP client. Only
 * the model is scripted; what the agent writes or runs really happens, or
 * does not, on a throwaway workspace.
 */
const agents = realAgentsOrSkip()

const PATCH: ScriptedModelStep = {
  type: 'patch',
  patch: addFilePatch('made-by-acp.txt', 'hello over ACP\n'),
}
const ESCALATED_TOUCH: ScriptedModelStep = {
  type: 'exec',
  command: 'echo ran >> escalated.txt',
  justification: 'the scripted model wants to append a line',
}

const PLAN_ONLY = { 'ask-for-approval': 'plan', 'approve-for-me': 'plan', 'full-access': 'plan' }

/** Sessions of the real codex-acp on fresh testbeds, with `sessionModes`;
 *  `prepare` writes what its Codex home holds before it starts. */
const acpSessions = (
  sessionModes?: AcpSessionModes,
  prepare: (bed: ExternalAgentTestbed) => void = () => undefined,
) =>
  useAgentSessions(agents, (bed, asker) => {
    prepare(bed)
    return new AcpClient({
      agent: bed.acpConfig(sessionModes),
      workspace: bed.workspace,
      asker,
      onEvent: bed.onEvent,
      machineSettings: bed.machineSettings,
    })
  })
const acp = acpSessions()
/** codex-acp whose Codex home holds rules allowing what the model runs. */
const acpWithRules = acpSessions(undefined, (bed) => writeCodexAllowRules(bed.home))
const acpWithNotify = acpSessions(undefined, writeCodexNotify)
const planOnly = acpSessions(PLAN_ONLY)
const runAcp = acp.run

describe.skipIf(!agents)('an ACP agent behind the asker (real codex-acp)', () => {
  it(
    'shows the file change with its new text and writes it once allowed',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, outcome } = await runAcp([PATCH, { type: 'reply', text: 'written' }], asker)
      expect(outcome).toEqual({ status: 'completed', detail: null })
      expect(asker.asked.map((a) => a.request.action)).toEqual([
        {
          kind: 'file-changes',
          changes: [
            {
              path: join(bed.workspace, 'made-by-acp.txt'),
              change: 'add',
              movePath: null,
              diff: null,
              oldText: null,
              newText: 'hello over ACP\n',
            },
          ],
        },
      ])
      expect(answered(bed)).toEqual(['allow-once->approved'])
      expect(readFileSync(join(bed.workspace, 'made-by-acp.txt'), 'utf8')).toBe('hello over ACP\n')
      expect(bed.model.toolOutputFor('call_scripted_1')).toContain('Success')
      const calls = bed.eventsOf('tool-call').filter((e) => e.toolCallId === 'call_scripted_1')
      expect(calls.map((e) => e.status)).toEqual(['running', 'awaiting-approval', 'succeeded'])
      expect(
        bed
          .eventsOf('agent-message')
          .map((e) => e.text)
          .join('\n'),
      ).toContain('written')
    },
  )

  it(
    'shows an escalated command as its argument vector and runs it once allowed',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, outcome } = await runAcp([ESCALATED_TOUCH, { type: 'reply', text: 'ok' }], asker)
      expect(outcome.status).toBe('completed')
      expect(asker.asked.map((a) => a.request.action)).toEqual([
        {
          kind: 'command',
          commandLine: "/bin/bash -lc 'echo ran >> escalated.txt'",
          argv: ['/bin/bash', '-lc', 'echo ran >> escalated.txt'],
          cwd: bed.workspace,
        },
      ])
      expect(readFileSync(join(bed.workspace, 'escalated.txt'), 'utf8')).toBe('ran\n')
    },
  )

  it(
    "answers allow-always with the agent's allow-once option, so it asks again next time",
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-always')
      const { bed } = await runAcp(
        [ESCALATED_TOUCH, ESCALATED_TOUCH, { type: 'reply', text: 'twice' }],
        asker,
      )
      // The agent offered "approved-execpolicy-amendment" (allow_always);
      // had it been chosen, the second identical command would not ask.
      expect(answered(bed)).toEqual(['allow-always->approved', 'allow-always->approved'])
      expect(asker.asked).toHaveLength(2)
      expect(readFileSync(join(bed.workspace, 'escalated.txt'), 'utf8')).toBe('ran\nran\n')
    },
  )

  for (const decision of ['deny', 'expired'] as const) {
    it(
      `writes nothing on ${decision}: the agent is told no and ends its turn`,
      { timeout: AGENT_WAIT_MS },
      async () => {
        const asker = new ScriptedAsker(decision)
        const { bed, session, outcome } = await runAcp(
          [PATCH, { type: 'reply', text: 'next turn' }],
          asker,
        )
        expect(answered(bed)).toEqual([`${decision}->abort`])
        expect(outcome).toEqual({ status: 'interrupted', detail: 'cancelled' })
        expect(existsSync(join(bed.workspace, 'made-by-acp.txt'))).toBe(false)
        // The refusal reaches the model with the next turn's history.
        expect(bed.model.requests).toHaveLength(1)
        await session.runTurn('what happened?')
        expect(bed.model.requests).toHaveLength(2)
        expect(bed.model.toolOutputFor('call_scripted_1')).toMatch(/^aborted by user/)
        const last = bed
          .eventsOf('tool-call')
          .filter((e) => e.toolCallId === 'call_scripted_1')
          .at(-1)
        expect(last?.status).toBe(decision === 'deny' ? 'denied' : 'expired')
      },
    )
  }

  for (const end of ['interrupt', 'close'] as const) {
    it(
      `answers a pending request with cancelled on ${end}, and nothing is written`,
      { timeout: AGENT_WAIT_MS },
      async () => {
        const asker = new ScriptedAsker(() => new Promise<ExternalDecision>(() => {}))
        const { bed, session } = await acp.start([PATCH, { type: 'reply', text: 'later' }], asker)
        const turn = session.runTurn('write it')
        await bed.waitForApprovalRequest()
        await session[end]()
        expect((await turn).status).toBe('interrupted')
        expect(asker.asked[0]?.signal.aborted).toBe(true)
        expect(answered(bed)).toEqual(['cancelled->cancelled'])
        expect(existsSync(join(bed.workspace, 'made-by-acp.txt'))).toBe(false)
        if (end === 'interrupt') {
          expect(await session.runTurn('go on')).toEqual({ status: 'completed', detail: null })
        }
      },
    )
  }

  it(
    'answers cancelled as cancelled, and nothing is written',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('cancelled')
      const { bed, outcome } = await runAcp([PATCH], asker)
      expect(answered(bed)).toEqual(['cancelled->cancelled'])
      expect(outcome.status).toBe('interrupted')
      expect(existsSync(join(bed.workspace, 'made-by-acp.txt'))).toBe(false)
    },
  )

  it(
    'runs plain commands in a read-only sandbox in ask-for-approval: a write fails unasked',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed } = await runAcp(
        [
          { type: 'exec', command: 'touch sneaky.txt' },
          { type: 'reply', text: 'ok' },
        ],
        asker,
      )
      expect(asker.asked).toHaveLength(0)
      expect(existsSync(join(bed.workspace, 'sneaky.txt'))).toBe(false)
      expect(bed.model.toolOutputFor('call_scripted_1')).toMatch(/Read-only file system/)
    },
  )

  it(
    'asks nothing in full access: the file change is written',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('deny')
      const { bed, outcome } = await runAcp(
        [PATCH, { type: 'reply', text: 'ok' }],
        asker,
        'full-access',
      )
      expect(outcome.status).toBe('completed')
      expect(asker.asked).toHaveLength(0)
      expect(existsSync(join(bed.workspace, 'made-by-acp.txt'))).toBe(true)
    },
  )

  it(
    'refuses to start a session in a mode the agent does not offer',
    { timeout: AGENT_WAIT_MS },
    async () => {
      await expect(planOnly.start([PATCH], new ScriptedAsker('allow-once'))).rejects.toThrow(
        'the agent offers no session mode "plan" (it offers: read-only, auto, full-access)',
      )
    },
  )

  it(
    "does not start a session while Codex's own rules would run commands without asking Assent",
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const touch: ScriptedModelStep = { type: 'exec', command: 'touch made-by-acp.txt' }
      await expect(acpWithRules.start([touch], asker)).rejects.toThrow(
        /^Codex's own settings would let it act without asking Assent: .*\/rules\/default\.rules\./,
      )
      expect(asker.asked).toHaveLength(0)
    },
  )

  it(
    "does not start a session while Codex's config has a notify command, which runs outside every sandbox",
    { timeout: AGENT_WAIT_MS },
    () => expectNotifyRefusedUnlessFullAccess(acpWithNotify),
  )
})
