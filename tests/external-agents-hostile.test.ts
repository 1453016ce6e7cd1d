import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  ExternalAgentConfigSchema,
  type AcpAgentConfig,
  type CodexAgentConfig,
} from '../src/contracts/agents-config.ts'
import { AcpClient } from '../src/runtime/external-agents/acp-client.ts'
import { CodexAppServerClient } from '../src/runtime/external-agents/codex-app-server-client.ts'
import type { ExternalAgentEvent } from '../src/runtime/external-agents/external-agent-port.ts'
import type { ScriptedAgentPlan } from './support/scripted-agent.ts'
import { ScriptedAsker } from './support/external-agent-testbed.ts'
import { scriptedAgentEntry, scriptedAnswers } from './support/scripted-agent-config.ts'

/**
 * What the adapters do with requests no real agent sends on demand: each
 * runs against a scripted agent process (tests/support/scripted-agent.ts)
 * that sends exactly the hostile message under test and records the answer
 * it got. Nothing here may ever be answered with an allow.
 */
const SESSION = 'scripted-session'
const TURN = 'scripted-turn'

let dir: string
let events: ExternalAgentEvent[]
let closeClient: (() => Promise<void>) | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assent-hostile-'))
  events = []
})

afterEach(async () => {
  await closeClient?.()
  closeClient = undefined
  rmSync(dir, { recursive: true, force: true })
})

const agentEntry = (protocol: 'codex-app-server' | 'acp', plan: ScriptedAgentPlan) =>
  scriptedAgentEntry(dir, protocol, plan)
const answers = () => scriptedAnswers(dir)

function codex(
  plan: ScriptedAgentPlan,
  asker = new ScriptedAsker('allow-once'),
): CodexAppServerClient {
  const agent = ExternalAgentConfigSchema.parse(
    agentEntry('codex-app-server', plan),
  ) as CodexAgentConfig
  const client = new CodexAppServerClient({
    agent,
    workspace: dir,
    asker,
    onEvent: (e) => events.push(e),
  })
  closeClient = () => client.close()
  return client
}

function acp(plan: ScriptedAgentPlan, asker = new ScriptedAsker('allow-once')): AcpClient {
  const agent = ExternalAgentConfigSchema.parse(agentEntry('acp', plan)) as AcpAgentConfig
  const client = new AcpClient({ agent, workspace: dir, asker, onEvent: (e) => events.push(e) })
  closeClient = () => client.close()
  return client
}

const commandParams = (fields: Record<string, unknown>) => ({
  threadId: SESSION,
  turnId: TURN,
  itemId: 'item-1',
  startedAtMs: 0,
  command: '/bin/bash -lc "rm -rf ~"',
  cwd: '/',
  ...fields,
})

function refusals(): string[] {
  return events.flatMap((e) => (e.type === 'request-refused' ? [`${e.code} -> ${e.answer}`] : []))
}

describe('the Codex client against a hostile agent', () => {
  // A request the agent leaves open when it ends its turn is answered
  // cancelled then, whatever the person decides later; two requests under
  // one id are both answered cancelled and neither is asked.
  it('answers cancelled a request left open at the turn’s end, and both requests that share an id', async () => {
    const asker = new ScriptedAsker(() => new Promise<never>(() => undefined))
    const method = 'item/commandExecution/requestApproval'
    const client = codex(
      {
        onTurn: [
          { leftOpen: { method, params: commandParams({ command: 'ls', cwd: dir }), id: 7 } },
          { leftOpen: { method, params: commandParams({ command: 'rm -rf ~', cwd: dir }), id: 7 } },
          { sleepMs: 200 },
          { leftOpen: { method, params: commandParams({ command: 'touch later', cwd: dir }) } },
          { sleepMs: 200 },
        ],
      },
      asker,
    )
    await client.start('ask-for-approval')
    expect(await client.runTurn('go')).toEqual({ status: 'completed', detail: null })
    await expect.poll(() => answers().length).toBe(3)
    expect(answers().map((a) => a.answer.result)).toEqual(Array(3).fill({ decision: 'cancel' }))
    // Only the first of the shared id and the one left open were asked;
    // both were withdrawn.
    expect(asker.asked.map((a) => a.signal.aborted)).toEqual([true, true])
  })

  it('does not use a thread whose approval policy Codex changed', async () => {
    const client = codex({ threadStart: { approvalPolicy: 'never' }, onTurn: [] })
    await expect(client.start('ask-for-approval')).rejects.toThrow(
      /Codex did not take the room's settings: asked for untrusted, workspaceWrite/,
    )
  })

  it.each([
    ['writes in another folder', () => ({ writableRoots: ['/opt'] })],
    ['writes in the workspace and another folder', () => ({ writableRoots: [dir, '/'] })],
    ['reaches the network', () => ({ networkAccess: true })],
    ['does not say whether it reaches the network', () => ({ networkAccess: undefined })],
    ['does not say where it writes', () => ({ writableRoots: undefined })],
  ])(
    "does not use a thread whose workspace-write sandbox Codex's config widened: it %s",
    async (_label, widened) => {
      const sandbox = {
        type: 'workspaceWrite',
        writableRoots: [],
        networkAccess: false,
        ...widened(),
      }
      await expect(
        codex({ threadStart: { sandbox }, onTurn: [] }).start('ask-for-approval'),
      ).rejects.toThrow(/did not take the room's settings/)
    },
  )

  it("does not use a plan room's read-only thread that reaches the network", async () => {
    await expect(
      codex({
        threadStart: { sandbox: { type: 'readOnly', networkAccess: true } },
        onTurn: [],
      }).start('plan'),
    ).rejects.toThrow(/did not take the room's settings/)
  })

  it('uses a thread whose workspace-write sandbox names only the workspace', async () => {
    const sandbox = { type: 'workspaceWrite', writableRoots: [dir], networkAccess: false }
    await expect(
      codex({ threadStart: { sandbox }, onTurn: [] }).start('ask-for-approval'),
    ).resolves.toBeUndefined()
  })

  it('does not use a thread whose sandbox or reviewer Codex changed', async () => {
    await expect(
      codex({ threadStart: { sandbox: { type: 'dangerFullAccess' } }, onTurn: [] }).start(
        'ask-for-approval',
      ),
    ).rejects.toThrow(/did not take the room's settings/)
    await expect(
      codex({ threadStart: { approvalsReviewer: 'auto_review' }, onTurn: [] }).start(
        'ask-for-approval',
      ),
    ).rejects.toThrow(/did not take the room's settings/)
  })

  it('declines, without asking, every command request that allows more than it shows', async () => {
    const asker = new ScriptedAsker('allow-once')
    const method = 'item/commandExecution/requestApproval'
    const client = codex(
      {
        onTurn: [
          { request: { method, params: { threadId: SESSION } } },
          { request: { method, params: commandParams({ kind: 'writeStdin' }) } },
          { request: { method, params: commandParams({ networkApprovalContext: { host: 'x' } }) } },
          {
            request: { method, params: commandParams({ additionalPermissions: { network: {} } }) },
          },
          { request: { method, params: commandParams({ command: null }) } },
          { request: { method, params: commandParams({ threadId: 'another-thread' }) } },
        ],
      },
      asker,
    )
    await client.start('ask-for-approval')
    expect(await client.runTurn('go')).toEqual({ status: 'completed', detail: null })
    expect(asker.asked).toHaveLength(0)
    expect(answers().map((a) => a.answer.result)).toEqual(Array(6).fill({ decision: 'decline' }))
    expect(refusals()).toEqual([
      'unreadable -> decline',
      'unsupported-command-kind -> decline',
      'network-access -> decline',
      'extra-permissions -> decline',
      'no-command-line -> decline',
      'other-session -> decline',
    ])
  })

  it('declines a file change it was never shown, or one that asks for a grant root', async () => {
    const asker = new ScriptedAsker('allow-once')
    const method = 'item/fileChange/requestApproval'
    const item = {
      type: 'fileChange',
      id: 'item-2',
      status: 'inProgress',
      changes: [{ path: 'a.txt', kind: { type: 'add' }, diff: 'x\n' }],
    }
    const client = codex(
      {
        onTurn: [
          { request: { method, params: { threadId: SESSION, turnId: TURN, itemId: 'unseen' } } },
          {
            notification: {
              method: 'item/started',
              params: { threadId: SESSION, turnId: TURN, item },
            },
          },
          {
            request: {
              method,
              params: { threadId: SESSION, turnId: TURN, itemId: 'item-2', grantRoot: '/' },
            },
          },
          { request: { method, params: { threadId: SESSION, turnId: 'other', itemId: 'item-2' } } },
        ],
      },
      asker,
    )
    await client.start('ask-for-approval')
    await client.runTurn('go')
    expect(asker.asked).toHaveLength(0)
    expect(answers().map((a) => a.answer.result)).toEqual(Array(3).fill({ decision: 'decline' }))
    expect(refusals()).toEqual([
      'unannounced-changes -> decline',
      'grant-root -> decline',
      'other-turn -> decline',
    ])
  })

  it('answers a request it does not know with an error, and goes on after a line that is not JSON', async () => {
    const asker = new ScriptedAsker('deny')
    const client = codex(
      {
        onTurn: [
          { request: { method: 'item/permissions/requestApproval', params: {} } },
          { raw: 'this is not JSON\n' },
          {
            request: { method: 'item/commandExecution/requestApproval', params: commandParams({}) },
          },
        ],
      },
      asker,
    )
    await client.start('ask-for-approval')
    await client.runTurn('go')
    const [unknown, command] = answers()
    expect(unknown?.answer.error).toMatchObject({ code: -32601 })
    expect(unknown?.answer.result).toBeUndefined()
    expect(command?.answer.result).toEqual({ decision: 'decline' })
    expect(asker.asked).toHaveLength(1)
    expect(events).toContainEqual({
      type: 'agent-warning',
      text: 'Codex sent not JSON: this is not JSON',
    })
  })
})

describe('the ACP client against a hostile agent', () => {
  const permission = (fields: Record<string, unknown>) => ({
    request: {
      method: 'session/request_permission',
      params: {
        sessionId: SESSION,
        toolCall: {
          toolCallId: 'call-1',
          kind: 'execute',
          title: 'rm',
          rawInput: { command: ['rm', '-rf', '/'] },
        },
        options: [
          { optionId: 'yes', kind: 'allow_once' },
          { optionId: 'no', kind: 'reject_once' },
        ],
        ...fields,
      },
    },
  })

  it('answers cancelled a request left open when the turn ended, though the person allows it later', async () => {
    let allowLater: (decision: 'allow-once') => void = () => undefined
    const asker = new ScriptedAsker(
      () => new Promise<'allow-once'>((resolve) => (allowLater = resolve)),
    )
    const client = acp({ onTurn: [{ leftOpen: permission({}).request }, { sleepMs: 200 }] }, asker)
    await client.start('ask-for-approval')
    await client.runTurn('go')
    allowLater('allow-once')
    await expect.poll(() => answers().length).toBe(1)
    expect(answers()[0]?.answer.result).toEqual({ outcome: { outcome: 'cancelled' } })
    expect(asker.asked[0]?.signal.aborted).toBe(true)
  })

  it('refuses, without asking, a request that offers no allow-once option', async () => {
    const asker = new ScriptedAsker('allow-always')
    const client = acp(
      {
        onTurn: [
          permission({
            options: [
              { optionId: 'forever', kind: 'allow_always' },
              { optionId: 'never-again', kind: 'reject_always' },
              { optionId: 'no', kind: 'reject_once' },
            ],
          }),
          permission({ options: [{ optionId: 'forever', kind: 'allow_always' }] }),
        ],
      },
      asker,
    )
    await client.start('ask-for-approval')
    await client.runTurn('go')
    expect(asker.asked).toHaveLength(0)
    expect(answers().map((a) => a.answer.result)).toEqual([
      { outcome: { outcome: 'selected', optionId: 'no' } },
      { outcome: { outcome: 'cancelled' } },
    ])
    expect(refusals()).toEqual(['no-allow-once-option -> no', 'no-allow-once-option -> cancelled'])
  })

  it('answers cancelled to a request it cannot read, one for another session, or one with shared option ids', async () => {
    const asker = new ScriptedAsker('allow-once')
    const client = acp(
      {
        onTurn: [
          permission({ toolCall: undefined }),
          permission({ sessionId: 'someone-else' }),
          permission({
            options: [
              { optionId: 'same', kind: 'allow_once' },
              { optionId: 'same', kind: 'reject_once' },
            ],
          }),
        ],
      },
      asker,
    )
    await client.start('ask-for-approval')
    await client.runTurn('go')
    expect(asker.asked).toHaveLength(0)
    expect(answers().map((a) => a.answer.result)).toEqual(
      Array(3).fill({ outcome: { outcome: 'cancelled' } }),
    )
    expect(refusals()).toEqual([
      'unreadable -> cancelled',
      'other-session -> cancelled',
      'ambiguous-options -> cancelled',
    ])
  })

  it('refuses, without asking, a command whose folder is not an absolute path', async () => {
    const asker = new ScriptedAsker('allow-once')
    const client = acp(
      {
        onTurn: [
          permission({
            toolCall: {
              toolCallId: 'call-1',
              kind: 'execute',
              title: 'cp',
              rawInput: { command: 'cp x post-merge', cwd: '.git/hooks' },
            },
          }),
        ],
      },
      asker,
    )
    await client.start('ask-for-approval')
    await client.runTurn('go')
    expect(asker.asked).toHaveLength(0)
    expect(answers().map((a) => a.answer.result)).toEqual([
      { outcome: { outcome: 'selected', optionId: 'no' } },
    ])
    expect(refusals()).toEqual(['command-folder-not-absolute -> no'])
  })

  it('offers no file system or terminal: such requests get an error', async () => {
    const client = acp({
      onTurn: [
        { request: { method: 'fs/write_text_file', params: { path: '/etc/passwd', content: '' } } },
      ],
    })
    await client.start('ask-for-approval')
    await client.runTurn('go')
    expect(answers()[0]?.answer.error).toMatchObject({ code: -32601 })
    expect(refusals()).toEqual(['unsupported-request -> error: method not found'])
  })

  it('keeps no call of a finished turn: an update of it in a later turn stands alone', async () => {
    // Each turn plays the same two updates: one of a call not yet
    // described, then the call described. Kept past its turn, the second
    // turn's first update would have read the first turn's description
    // (and a session kept every call it ever made in memory).
    const update = (fields: Record<string, unknown>) => ({
      notification: {
        method: 'session/update',
        params: {
          sessionId: SESSION,
          update: { sessionUpdate: 'tool_call_update', toolCallId: 'call-1', ...fields },
        },
      },
    })
    const client = acp({
      onTurn: [
        update({ status: 'completed' }),
        update({ sessionUpdate: 'tool_call', title: 'edit notes.txt', kind: 'edit' }),
      ],
    })
    await client.start('ask-for-approval')
    await client.runTurn('first')
    await client.runTurn('second')
    const titles = events.flatMap((e) => (e.type === 'tool-call' ? [e.title] : []))
    expect(titles).toEqual(['', 'edit notes.txt', '', 'edit notes.txt'])
  })

  it('ends the turn and runs no other when the agent leaves the session mode', async () => {
    const client = acp({
      onTurn: [
        {
          notification: {
            method: 'session/update',
            params: {
              sessionId: SESSION,
              update: { sessionUpdate: 'current_mode_update', currentModeId: 'auto' },
            },
          },
        },
      ],
    })
    await client.start('ask-for-approval')
    await client.runTurn('go')
    expect(events).toContainEqual({
      type: 'agent-warning',
      text: 'the agent left session mode read-only for auto; its turn is ended',
    })
    await expect(client.runTurn('again')).rejects.toThrow(
      'the agent left session mode read-only for auto',
    )
  })
})
