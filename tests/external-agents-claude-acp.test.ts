import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import { AcpClient } from '../src/runtime/external-agents/acp-client.ts'
import type { ScriptedMessagesStep } from '../scripts/agents/scripted-messages-server.ts'
import {
  AGENT_WAIT_MS,
  answered,
  realAgentsOrSkip,
  ScriptedAsker,
  useAgentSessions,
  type ExternalAgentTestbed,
} from './support/external-agent-testbed.ts'

/**
 * A second real ACP agent (the pinned claude-agent-acp, the Claude Agent
 * SDK behind ACP) behind Assent's ACP client, talking to a scripted
 * Anthropic Messages API on loopback. Only the model is scripted; what the
 * agent writes or runs really happens, or does not, on a throwaway
 * workspace.
 */
const agents = realAgentsOrSkip()

/** Sessions of the real claude-agent-acp on fresh testbeds; `prepare`
 *  writes what the person's home or the workspace holds before it starts. */
const claudeSessions = (prepare: (bed: ExternalAgentTestbed) => void = () => undefined) =>
  useAgentSessions(agents, (bed, asker) => {
    prepare(bed)
    return new AcpClient({
      agent: bed.claudeConfig(),
      workspace: bed.workspace,
      asker,
      onEvent: bed.onEvent,
      machineSettings: bed.machineSettings,
    })
  })
const claude = claudeSessions()

/** Claude settings that would let it act unasked: every command and edit
 *  allowed, and a hook that runs a command at each prompt. */
function permissiveSettings(marker: string): string {
  return JSON.stringify({
    permissions: { allow: ['Bash', 'Write', 'Edit'], defaultMode: 'acceptEdits' },
    hooks: {
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch ${marker}` }] }],
    },
  })
}

/** The same agent, with permissive Claude settings in the person's home
 *  and in the workspace (a repository that ships them), written before its
 *  session starts; each hook would leave `hook-ran-<where>.txt`. */
const claudeWithSettings = claudeSessions((bed) => {
  for (const [where, folder] of [
    ['home', bed.home],
    ['workspace', bed.workspace],
  ] as const) {
    mkdirSync(join(folder, '.claude'), { recursive: true })
    writeFileSync(
      join(folder, '.claude', 'settings.json'),
      permissiveSettings(join(bed.root, `hook-ran-${where}.txt`)),
    )
  }
})

/** The same agent, with managed settings (as an administrator keeps in
 *  /etc/claude-code) that allow every command and name a hook. */
const claudeWithManagedSettings = claudeSessions((bed) => {
  mkdirSync(bed.machineSettings.claude, { recursive: true })
  writeFileSync(
    join(bed.machineSettings.claude, 'managed-settings.json'),
    permissiveSettings(join(bed.root, 'hook-ran-managed.txt')),
  )
})

/** A session on a fresh testbed, its model scripted with `steps`, and one turn. */
async function runClaude(
  steps: (workspace: string) => ScriptedMessagesStep[],
  asker: ScriptedAsker,
  mode: PermissionMode = 'ask-for-approval',
  before?: (workspace: string) => void,
) {
  const { bed, session } = await claude.start([], asker, mode)
  before?.(bed.workspace)
  bed.messages.script(steps(bed.workspace))
  const outcome = await session.runTurn('please do the scripted thing')
  return { bed, session, outcome }
}

const WRITE = (workspace: string): ScriptedMessagesStep[] => [
  { type: 'write', path: join(workspace, 'by-claude.txt'), content: 'hello from Claude\n' },
  { type: 'reply', text: 'written' },
]
const COMMAND = 'echo ran >> ran.txt && echo appended'
const BASH = (): ScriptedMessagesStep[] => [
  { type: 'bash', command: COMMAND },
  { type: 'reply', text: 'ran' },
]

describe.skipIf(!agents)('a second ACP agent behind the asker (real claude-agent-acp)', () => {
  it(
    'asks for a new file with its diff, and writes it once allowed',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, outcome } = await runClaude(WRITE, asker)
      expect(outcome).toEqual({ status: 'completed', detail: null })
      const path = join(bed.workspace, 'by-claude.txt')
      expect(asker.asked.map((a) => a.request.action)).toEqual([
        {
          kind: 'file-changes',
          changes: [
            {
              path,
              change: 'add',
              movePath: null,
              diff: null,
              oldText: null,
              newText: 'hello from Claude\n',
            },
          ],
        },
      ])
      // Claude's "allow once" option is `allow`; its allow_always is never sent.
      expect(answered(bed)).toEqual(['allow-once->allow'])
      expect(readFileSync(path, 'utf8')).toBe('hello from Claude\n')
      expect(bed.messages.toolResultFor('toolu_scripted_1')).toMatchObject({ isError: false })
      const calls = bed.eventsOf('tool-call').filter((e) => e.toolCallId === 'toolu_scripted_1')
      expect(calls.at(-1)?.status).toBe('succeeded')
      expect(calls.map((e) => e.status)).toContain('awaiting-approval')
      expect(
        bed
          .eventsOf('agent-message')
          .map((e) => e.text)
          .join('\n'),
      ).toContain('written')
    },
  )

  it(
    'asks for an edit of an existing file with its old and new text, and writes it once allowed',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, outcome } = await runClaude(
        (workspace) => [
          // Claude edits only a file it has read: it reads it unasked.
          { type: 'read', path: join(workspace, 'notes.txt') },
          { type: 'edit', path: join(workspace, 'notes.txt'), oldText: 'two', newText: 'TWO' },
          { type: 'reply', text: 'edited' },
        ],
        asker,
        'ask-for-approval',
        (workspace) => writeFileSync(join(workspace, 'notes.txt'), 'one\ntwo\nthree\n'),
      )
      expect(outcome.status).toBe('completed')
      expect(asker.asked.map((a) => a.request.action)).toEqual([
        {
          kind: 'file-changes',
          changes: [
            {
              path: join(bed.workspace, 'notes.txt'),
              change: 'update',
              movePath: null,
              diff: null,
              // Claude sends the replaced text only; the runtime places it
              // in the file for the window (tests/external-agents-runtime-claude).
              oldText: 'two',
              newText: 'TWO',
            },
          ],
        },
      ])
      expect(readFileSync(join(bed.workspace, 'notes.txt'), 'utf8')).toBe('one\nTWO\nthree\n')
    },
  )

  it(
    'asks for a command with its exact command line and folder, and runs it once allowed',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, outcome } = await runClaude(BASH, asker)
      expect(outcome.status).toBe('completed')
      expect(asker.asked.map((a) => a.request.action)).toEqual([
        { kind: 'command', commandLine: COMMAND, argv: null, cwd: bed.workspace },
      ])
      expect(readFileSync(join(bed.workspace, 'ran.txt'), 'utf8')).toBe('ran\n')
      expect(bed.messages.toolResultFor('toolu_scripted_1')).toEqual({
        text: 'appended',
        isError: false,
      })
    },
  )

  for (const [what, steps, file] of [
    ['file', WRITE, 'by-claude.txt'],
    ['command', BASH, 'ran.txt'],
  ] as const) {
    for (const decision of ['deny', 'expired'] as const) {
      it(
        `does nothing on ${decision} of a ${what}: the model is told it was refused, and the turn goes on`,
        { timeout: AGENT_WAIT_MS },
        async () => {
          const asker = new ScriptedAsker(decision)
          const { bed, outcome } = await runClaude(steps, asker)
          expect(asker.asked).toHaveLength(1)
          expect(answered(bed)).toEqual([`${decision}->reject`])
          expect(existsSync(join(bed.workspace, file))).toBe(false)
          // Unlike codex-acp, Claude goes on with its turn: the model hears
          // the refusal as the tool's error result and answers.
          expect(outcome).toEqual({ status: 'completed', detail: null })
          expect(bed.messages.toolResultFor('toolu_scripted_1')).toMatchObject({
            isError: true,
            text: expect.stringMatching(/refused permission/i),
          })
          // The adapter marks the call refused as soon as it answers; Claude
          // then reports it failed (the room's timeline keeps Assent's mark).
          const statuses = bed
            .eventsOf('tool-call')
            .filter((e) => e.toolCallId === 'toolu_scripted_1')
            .map((e) => e.status)
          expect(statuses).toContain(decision === 'deny' ? 'denied' : 'expired')
          expect(statuses).not.toContain('succeeded')
        },
      )
    }
  }

  it(
    'keeps asking in full access (its default mode): the request reaches Assent',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed } = await runClaude(WRITE, asker, 'full-access')
      expect(asker.asked).toHaveLength(1)
      expect(existsSync(join(bed.workspace, 'by-claude.txt'))).toBe(true)
    },
  )

  it(
    'refuses a write Claude names as ~/…, which it makes in its home folder, without asking anyone',
    { timeout: AGENT_WAIT_MS },
    async () => {
      // Read from the session's folder, `~/x` would be shown as a new file
      // inside the workspace, which the reviewer or a grant may allow.
      const asker = new ScriptedAsker('allow-once')
      const { bed } = await runClaude(
        () => [
          { type: 'write', path: '~/other-project/README.md', content: 'by the agent\n' },
          { type: 'reply', text: 'written' },
        ],
        asker,
      )
      expect(asker.asked).toHaveLength(0)
      expect(existsSync(join(bed.home, 'other-project', 'README.md'))).toBe(false)
      expect(existsSync(join(bed.workspace, '~'))).toBe(false)
      expect(bed.events).toContainEqual(
        expect.objectContaining({ type: 'request-refused', code: 'place-not-absolute' }),
      )
    },
  )

  it(
    'asks in plan mode too (its plan mode), so Assent’s plan policy can refuse',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('deny')
      const { bed } = await runClaude(BASH, asker, 'plan')
      expect(asker.asked.map((a) => a.request.action.kind)).toEqual(['command'])
      expect(existsSync(join(bed.workspace, 'ran.txt'))).toBe(false)
    },
  )

  it(
    'asks whatever Claude settings in the home or the workspace allow, and runs none of their hooks',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('deny')
      const { bed, session } = await claudeWithSettings.start([], asker)
      bed.messages.script(BASH())
      expect(await session.runTurn('please do the scripted thing')).toEqual({
        status: 'completed',
        detail: null,
      })
      expect(asker.asked.map((a) => a.request.action.kind)).toEqual(['command'])
      expect(existsSync(join(bed.workspace, 'ran.txt'))).toBe(false)
      expect(existsSync(join(bed.root, 'hook-ran-home.txt'))).toBe(false)
      expect(existsSync(join(bed.root, 'hook-ran-workspace.txt'))).toBe(false)
    },
  )

  it(
    'does not start while managed settings, which no session turns off, would let it act unasked',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('deny')
      for (const mode of ['ask-for-approval', 'plan'] as const) {
        await expect(claudeWithManagedSettings.start([], asker, mode)).rejects.toThrow(
          /^Claude's managed settings would let it act without asking Assent: .*managed-settings\.json \(permissions\.allow\), .*managed-settings\.json \(hooks\)\. Claude reads them for every session on this machine/,
        )
      }
      expect(asker.asked).toHaveLength(0)
    },
  )
})
