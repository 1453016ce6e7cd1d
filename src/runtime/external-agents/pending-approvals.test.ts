import { describe, expect, it } from 'vitest'
import type {
  ExternalActionRequest,
  ExternalAgentEvent,
  ExternalDecision,
} from './external-agent-port.ts'
import { PendingApprovals } from './pending-approvals.ts'

const request: ExternalActionRequest = {
  requestId: 'r',
  protocol: 'acp',
  sessionId: 's',
  toolCallId: 't',
  reason: null,
  sandboxMode: 'danger-full-access',
  action: { kind: 'command', commandLine: 'ls', argv: null, cwd: '/w' },
}

function desk(ask: (signal: AbortSignal) => Promise<unknown>) {
  const events: ExternalAgentEvent[] = []
  const approvals = new PendingApprovals(
    { ask: (_request, signal) => ask(signal) as Promise<ExternalDecision> },
    (event) => events.push(event),
  )
  return { approvals, events }
}

describe('pending approvals', () => {
  it('passes the asker’s decision through and announces the request', async () => {
    const { approvals, events } = desk(async () => 'allow-once')
    await expect(approvals.decide('k', request)).resolves.toBe('allow-once')
    expect(events).toEqual([{ type: 'approval-requested', request }])
    expect(approvals.size).toBe(0)
  })

  it('treats a failing asker, or one that answers nonsense, as expired', async () => {
    await expect(
      desk(async () => Promise.reject(new Error('down'))).approvals.decide('k', request),
    ).resolves.toBe('expired')
    await expect(desk(async () => 'yes please').approvals.decide('k', request)).resolves.toBe(
      'expired',
    )
    await expect(desk(async () => undefined).approvals.decide('k', request)).resolves.toBe(
      'expired',
    )
  })

  it('settles a withdrawn request as cancelled at once, and ignores a later allow', async () => {
    let allowLater: (decision: ExternalDecision) => void = () => {}
    let seenSignal: AbortSignal | undefined
    const { approvals } = desk((signal) => {
      seenSignal = signal
      return new Promise((resolve) => {
        allowLater = resolve
      })
    })
    const decided = approvals.decide('k', request)
    approvals.withdraw('k')
    allowLater('allow-once')
    await expect(decided).resolves.toBe('cancelled')
    expect(seenSignal?.aborted).toBe(true)
  })

  it('does not let an allow that lost the race against a withdrawal through', async () => {
    // What the asker saw is kept and checked here, after it answered: an
    // assertion inside the asker would throw into the desk, which takes a
    // failing asker as an answer and never fails the test.
    const seen: { abortedWhenAnswering?: boolean } = {}
    let answered: () => void = () => {}
    const answeredAllow = new Promise<void>((resolve) => (answered = resolve))
    const { approvals } = desk(async (signal) => {
      await new Promise((resolve) => setImmediate(resolve))
      seen.abortedWhenAnswering = signal.aborted
      answered()
      return 'allow-always'
    })
    const decided = approvals.decide('k', request)
    approvals.withdrawAll()
    await answeredAllow
    expect(seen.abortedWhenAnswering).toBe(true)
    await expect(decided).resolves.toBe('cancelled')
    expect(approvals.size).toBe(0)
  })
})
