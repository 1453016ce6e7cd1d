import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CodexAppServerClient } from '../src/runtime/external-agents/codex-app-server-client.ts'
import type { ExternalDecision } from '../src/runtime/external-agents/external-agent-port.ts'
import { addFilePatch } from '../scripts/agents/scripted-model-server.ts'
import { GATEWAY_ENTRY, NOTES_SERVER } from './support/mcp-gateway-harness.ts'
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
 * The real Codex CLI (`codex app-server`, the pinned version) behind
 * Assent's adapter. Only the model is scripted; the commands and file
 * changes Codex makes really run, or do not, on a throwaway workspace.
 */
const agents = realAgentsOrSkip()

const TOUCH = 'touch made-by-codex.txt && echo touched'

/** Sessions of the real Codex on fresh testbeds; `prepare` writes what the
 *  person's Codex home or the workspace holds before Codex starts. */
const codexSessions = (prepare: (bed: ExternalAgentTestbed) => void = () => undefined) =>
  useAgentSessions(agents, (bed, asker) => {
    prepare(bed)
    return new CodexAppServerClient({
      agent: bed.codexConfig(),
      workspace: bed.workspace,
      asker,
      onEvent: bed.onEvent,
      machineSettings: bed.machineSettings,
    })
  })
const codex = codexSessions()
const runCodex = codex.run

/** A person's config.toml that widens Codex's workspace-write sandbox
 *  without renaming it: another folder to write in, and the network. */
const WIDENING_CONFIG = [
  '',
  '[sandbox_workspace_write]',
  'writable_roots = ["/opt"]',
  'network_access = true',
  '',
].join('\n')
/** Codex whose own rules allow what the model runs: in its home
 *  (CODEX_HOME), or shipped in the workspace's `.codex`. */
const rulesInHome = codexSessions((bed) => writeCodexAllowRules(bed.home))
const rulesInWorkspace = codexSessions((bed) => writeCodexAllowRules(join(bed.workspace, '.codex')))
/** Or in the machine's folder (/etc/codex), which every Codex reads. */
const rulesOnMachine = codexSessions((bed) => writeCodexAllowRules(bed.machineSettings.codex))
/** Or above the repository the workspace is, in a folder the person's
 *  config makes the project's root by its own marker (and trusts). */
const rulesAboveRepository = codexSessions((bed) => {
  mkdirSync(join(bed.workspace, '.git'))
  writeFileSync(join(bed.root, 'project-root'), '')
  writeCodexAllowRules(join(bed.root, '.codex'))
  const config = join(bed.home, 'config.toml')
  writeFileSync(
    config,
    `project_root_markers = ["project-root"]\n${readFileSync(config, 'utf8')}` +
      `\n[projects.${JSON.stringify(bed.root)}]\ntrust_level = "trusted"\n`,
  )
})
/** Codex whose config.toml names an MCP server of the person's, one whose
 *  read tool says it only reads: Codex calls that one without asking. */
const codexWithMcpServer = codexSessions((bed) =>
  appendFileSync(
    join(bed.home, 'config.toml'),
    [
      '',
      '[mcp_servers.notes]',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(NOTES_SERVER)}]`,
      '',
    ].join('\n'),
  ),
)
/** Codex whose config.toml has a notify command (writeCodexNotify). */
const codexWithNotify = codexSessions(writeCodexNotify)
/** Codex whose config.toml names Assent's own gateway as an MCP server
 *  (it asks the person itself), or a server that only names it among its
 *  arguments and runs a command of its own. */
const gatewayServer = (command: string, args: string[]) =>
  codexSessions((bed) =>
    appendFileSync(
      join(bed.home, 'config.toml'),
      `\n[mcp_servers.assent]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify(args)}\n`,
    ),
  )
const codexWithGateway = gatewayServer(process.execPath, [
  GATEWAY_ENTRY,
  '--config',
  '/nonexistent/mcp.json',
])
const FAKE_GATEWAY_MARK = 'fake-gateway-ran'
const codexWithFakeGateway = gatewayServer('sh', [
  '-c',
  `touch ${FAKE_GATEWAY_MARK}; sleep 30`,
  'assent-gateway',
])
const widenedCodex = codexSessions((bed) =>
  appendFileSync(join(bed.home, 'config.toml'), WIDENING_CONFIG),
)

describe.skipIf(!agents)('Codex app-server behind the asker (real binary)', () => {
  it(
    'runs the command the person allowed, and the model reads its output',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, outcome } = await runCodex(
        [
          { type: 'exec', command: TOUCH },
          { type: 'reply', text: 'done touching' },
        ],
        asker,
      )
      expect(outcome.status).toBe('completed')
      expect(asker.asked).toHaveLength(1)
      const request = asker.asked[0]?.request
      expect(request?.action).toEqual({
        kind: 'command',
        commandLine: `/bin/bash -lc '${TOUCH}'`,
        argv: null,
        cwd: bed.workspace,
      })
      expect(request?.protocol).toBe('codex-app-server')
      // Codex may run an allowed command outside its sandbox: the worst case
      // is what the person is shown.
      expect(request?.sandboxMode).toBe('danger-full-access')
      expect(existsSync(join(bed.workspace, 'made-by-codex.txt'))).toBe(true)
      expect(bed.model.toolOutputFor('call_scripted_1')).toContain('touched')
      expect(answered(bed)).toEqual(['allow-once->accept'])
      const finished = bed
        .eventsOf('tool-call')
        .filter((e) => e.toolCallId === 'call_scripted_1')
        .at(-1)
      expect(finished).toMatchObject({ status: 'succeeded', exitCode: 0, output: 'touched\n' })
      expect(bed.eventsOf('agent-message').map((e) => e.text)).toEqual(['done touching'])
      expect(bed.eventsOf('turn-ended')).toEqual([{ type: 'turn-ended', outcome }])
    },
  )

  it(
    'shows the file change with its diff and writes it once allowed',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, outcome } = await runCodex(
        [
          { type: 'patch', patch: addFilePatch('notes/new.txt', 'hello from the model\n') },
          { type: 'reply', text: 'ok' },
        ],
        asker,
      )
      expect(outcome.status).toBe('completed')
      expect(asker.asked.map((a) => a.request.action)).toEqual([
        {
          kind: 'file-changes',
          changes: [
            {
              path: join(bed.workspace, 'notes/new.txt'),
              change: 'add',
              movePath: null,
              diff: 'hello from the model\n',
              oldText: null,
              newText: null,
            },
          ],
        },
      ])
      expect(readFileSync(join(bed.workspace, 'notes/new.txt'), 'utf8')).toBe(
        'hello from the model\n',
      )
      expect(bed.model.toolOutputFor('call_scripted_1')).toContain('Success')
    },
  )

  for (const decision of ['deny', 'expired'] as const) {
    it(
      `leaves the disk untouched on ${decision} and the model is told it was rejected`,
      { timeout: AGENT_WAIT_MS },
      async () => {
        const asker = new ScriptedAsker(decision)
        const { bed, outcome } = await runCodex(
          [
            { type: 'exec', command: TOUCH },
            { type: 'reply', text: 'understood' },
          ],
          asker,
        )
        expect(existsSync(join(bed.workspace, 'made-by-codex.txt'))).toBe(false)
        expect(answered(bed)).toEqual([`${decision}->decline`])
        expect(bed.model.toolOutputFor('call_scripted_1')).toMatch(/rejected by user/)
        expect(outcome.status).toBe('completed')
        const last = bed
          .eventsOf('tool-call')
          .filter((e) => e.toolCallId === 'call_scripted_1')
          .at(-1)
        expect(last?.status).toBe(decision === 'deny' ? 'denied' : 'expired')
      },
    )

    it(
      `does not write a file change on ${decision}, and the model is told`,
      { timeout: AGENT_WAIT_MS },
      async () => {
        const asker = new ScriptedAsker(decision)
        const { bed } = await runCodex(
          [
            { type: 'patch', patch: addFilePatch('refused.txt', 'no\n') },
            { type: 'reply', text: 'ok' },
          ],
          asker,
        )
        expect(existsSync(join(bed.workspace, 'refused.txt'))).toBe(false)
        expect(bed.model.toolOutputFor('call_scripted_1')).toMatch(/patch rejected by user/)
      },
    )
  }

  it(
    'answers cancelled with cancel: nothing runs and the turn is interrupted',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('cancelled')
      const { bed, outcome } = await runCodex([{ type: 'exec', command: TOUCH }], asker)
      expect(outcome.status).toBe('interrupted')
      expect(answered(bed)).toEqual(['cancelled->cancel'])
      expect(existsSync(join(bed.workspace, 'made-by-codex.txt'))).toBe(false)
      expect(bed.model.requests).toHaveLength(1)
    },
  )

  it('declines, never accepts, when the asker fails', { timeout: AGENT_WAIT_MS }, async () => {
    const asker = new ScriptedAsker(async () => {
      throw new Error('the approval store is down')
    })
    const { bed } = await runCodex(
      [
        { type: 'exec', command: TOUCH },
        { type: 'reply', text: 'ok' },
      ],
      asker,
    )
    expect(answered(bed)).toEqual(['expired->decline'])
    expect(existsSync(join(bed.workspace, 'made-by-codex.txt'))).toBe(false)
  })

  it(
    'tells Codex allow-always as a single accept, so Codex asks again next time',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-always')
      const { bed } = await runCodex(
        [
          { type: 'exec', command: 'echo first >> log.txt' },
          { type: 'exec', command: 'echo first >> log.txt' },
          { type: 'reply', text: 'twice' },
        ],
        asker,
      )
      // Had Codex been told acceptForSession or an exec-policy amendment, it
      // would have run the second, identical command without asking.
      expect(asker.asked.map((a) => a.request.toolCallId)).toEqual([
        'call_scripted_1',
        'call_scripted_2',
      ])
      expect(answered(bed)).toEqual(['allow-always->accept', 'allow-always->accept'])
      expect(readFileSync(join(bed.workspace, 'log.txt'), 'utf8')).toBe('first\nfirst\n')
    },
  )

  for (const end of ['interrupt', 'close'] as const) {
    it(
      `answers a pending request with cancel on ${end}, and nothing runs`,
      { timeout: AGENT_WAIT_MS },
      async () => {
        const asker = new ScriptedAsker(() => new Promise<ExternalDecision>(() => {}))
        const { bed, session } = await codex.start(
          [
            { type: 'exec', command: TOUCH },
            { type: 'reply', text: 'after the interruption' },
          ],
          asker,
        )
        const turn = session.runTurn('touch it')
        await bed.waitForApprovalRequest()
        await session[end]()
        expect((await turn).status).toBe('interrupted')
        expect(asker.asked[0]?.signal.aborted).toBe(true)
        expect(answered(bed)).toEqual(['cancelled->cancel'])
        expect(existsSync(join(bed.workspace, 'made-by-codex.txt'))).toBe(false)
        if (end === 'interrupt') {
          // The session outlives an interrupted turn.
          expect(await session.runTurn('go on')).toEqual({ status: 'completed', detail: null })
        }
      },
    )
  }

  it(
    'asks for every command in ask-for-approval, even one that only lists files',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('deny')
      await runCodex(
        [
          { type: 'exec', command: 'ls' },
          { type: 'reply', text: 'ok' },
        ],
        asker,
      )
      expect(asker.asked).toHaveLength(1)
    },
  )

  it(
    'asks nothing in full access: Codex runs the command with no sandbox',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('deny')
      const { bed, outcome } = await runCodex(
        [
          { type: 'exec', command: TOUCH },
          { type: 'reply', text: 'ok' },
        ],
        asker,
        'full-access',
      )
      expect(outcome.status).toBe('completed')
      expect(asker.asked).toHaveLength(0)
      expect(existsSync(join(bed.workspace, 'made-by-codex.txt'))).toBe(true)
    },
  )

  it(
    "uses no thread whose sandbox the person's config.toml widened",
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      await expect(widenedCodex.start([], asker)).rejects.toThrow(
        /did not take the room's settings: .*"writableRoots":\["\/opt"\],"networkAccess":true/,
      )
      expect(asker.asked).toHaveLength(0)
    },
  )

  for (const [where, sessions] of [
    ['its home', rulesInHome],
    ['the workspace', rulesInWorkspace],
    ["the machine's folder", rulesOnMachine],
    ['a folder above the repository that its own root marker names', rulesAboveRepository],
  ] as const) {
    it(
      `does not start while rules of its own in ${where} would run commands without asking Assent`,
      { timeout: AGENT_WAIT_MS },
      async () => {
        const asker = new ScriptedAsker('allow-once')
        for (const mode of ['ask-for-approval', 'plan'] as const) {
          await expect(
            sessions.start([{ type: 'exec', command: TOUCH }], asker, mode),
          ).rejects.toThrow(
            /^Codex's own settings would let it act without asking Assent: .*\/rules\/default\.rules\. Move them aside/,
          )
        }
        expect(asker.asked).toHaveLength(0)
        // In full access Codex asks nothing anyway: it starts.
        const { bed, session } = await sessions.start(
          [
            { type: 'exec', command: TOUCH },
            { type: 'reply', text: 'ok' },
          ],
          asker,
          'full-access',
        )
        expect(await session.runTurn('go')).toEqual({ status: 'completed', detail: null })
        expect(existsSync(join(bed.workspace, 'made-by-codex.txt'))).toBe(true)
      },
    )
  }

  it(
    "does not start while Codex's config names an MCP server it would call itself",
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const read = {
        type: 'tool',
        namespace: 'mcp__notes',
        name: 'read_note',
        arguments: { name: 'a.txt' },
      } as const
      await expect(codexWithMcpServer.start([read], asker)).rejects.toThrow(
        /settings would let it act without asking Assent: .*config\.toml \(MCP server "notes"\)\. Move them aside \(an MCP server can go behind assent-gateway\)/,
      )
      expect(asker.asked).toHaveLength(0)
    },
  )

  it(
    "starts beside Assent's own gateway in Codex's config, but not beside a server that only names it",
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('deny')
      const { outcome } = await codexWithGateway.run([{ type: 'reply', text: 'ok' }], asker, 'plan')
      expect(outcome).toEqual({ status: 'completed', detail: null })
      await expect(codexWithFakeGateway.start([], asker, 'plan')).rejects.toThrow(
        /settings would let it act without asking Assent: .*config\.toml \(MCP server "assent"\)\./,
      )
      expect(asker.asked).toHaveLength(0)
    },
  )

  it(
    "does not start while Codex's config has a notify command, which runs outside every sandbox",
    { timeout: AGENT_WAIT_MS },
    () => expectNotifyRefusedUnlessFullAccess(codexWithNotify),
  )
})
