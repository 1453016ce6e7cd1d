import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AcpClient } from '../src/runtime/external-agents/acp-client.ts'
import { CodexAppServerClient } from '../src/runtime/external-agents/codex-app-server-client.ts'
import type { AgentContainmentPort } from '../src/runtime/domain/agent-containment-port.ts'
import { AgentContainment } from '../src/runtime/sandbox/agent-containment.ts'
import {
  AGENT_WAIT_MS,
  realAgentsOrSkip,
  ScriptedAsker,
  useAgentSessions,
} from './support/external-agent-testbed.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

/**
 * The real agents, started the way the runtime starts them: inside
 * bubblewrap, with the person's credentials hidden. codex-acp's read-only
 * mode runs a command that only reads without asking anyone, wherever it
 * reads; Codex's app-server asks, and the person may allow a read they did
 * not see reaching a key. Either way, what the command prints goes to the
 * model: hidden, the key is not there to print.
 */
const agents = realAgentsOrSkip()
const bubblewrap = await bubblewrapRequired()
const KEY = 'PRIVATE-KEY-THE-MODEL-MUST-NOT-SEE'

let personHome: string
let keyFile: string
let containment: AgentContainmentPort | undefined

beforeAll(() => {
  // The person's home, where their key is: not the agent's own home,
  // which the testbed makes for it.
  personHome = realpathSync(mkdtempSync(join(tmpdir(), 'assent-person-home-')))
  mkdirSync(join(personHome, '.ssh'))
  keyFile = join(personHome, '.ssh', 'id_ed25519')
  writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 })
})

afterAll(() => rmSync(personHome, { recursive: true, force: true }))

const contained = (): AgentContainmentPort => {
  containment ??= new AgentContainment({
    env: { ...process.env, HOME: personHome },
    assentPrivate: [],
    allowUncontained: false,
  })
  return containment
}

const catKey = () => [
  { type: 'exec' as const, command: `cat ${keyFile}` },
  { type: 'reply' as const, text: 'done' },
]

/** codex-acp, started contained or as it is. */
const acpSessions = (contain: boolean) =>
  useAgentSessions(
    agents,
    (bed, asker) =>
      new AcpClient({
        agent: bed.acpConfig(),
        workspace: bed.workspace,
        asker,
        onEvent: bed.onEvent,
        machineSettings: bed.machineSettings,
        ...(contain ? { containment: contained() } : {}),
      }),
  )
const codexSessions = useAgentSessions(
  agents,
  (bed, asker) =>
    new CodexAppServerClient({
      agent: bed.codexConfig(),
      workspace: bed.workspace,
      asker,
      onEvent: bed.onEvent,
      machineSettings: bed.machineSettings,
      containment: contained(),
    }),
)
const claudeContained = useAgentSessions(
  agents,
  (bed, asker) =>
    new AcpClient({
      agent: bed.claudeConfig(),
      workspace: bed.workspace,
      asker,
      onEvent: bed.onEvent,
      machineSettings: bed.machineSettings,
      containment: contained(),
    }),
)
const acpContained = acpSessions(true)
const acpAsItIs = acpSessions(false)

describe.skipIf(!agents || !bubblewrap)('an external agent started contained', () => {
  it(
    "codex-acp's unasked read of the person's key prints nothing of it",
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, outcome } = await acpContained.run(catKey(), asker)
      expect(outcome.status).toBe('completed')
      // Still unasked: the agent's own mode runs it.
      expect(asker.asked).toHaveLength(0)
      const output = bed.model.toolOutputFor('call_scripted_1')
      expect(output).not.toContain(KEY)
      // The command ran, and found nothing where the key is.
      expect(output).toMatch(/id_ed25519: No such file or directory/)
    },
  )

  it(
    'started as it is, codex-acp reads the key unasked (what the containment is for)',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed } = await acpAsItIs.run(catKey(), asker)
      expect(asker.asked).toHaveLength(0)
      expect(bed.model.toolOutputFor('call_scripted_1')).toContain(KEY)
    },
  )

  it(
    "Codex's read the person allowed prints nothing of the key, and the agent still writes its workspace",
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, outcome } = await codexSessions.run(
        [
          { type: 'exec', command: `cat ${keyFile}; echo written > made.txt` },
          { type: 'reply', text: 'done' },
        ],
        asker,
      )
      expect(outcome.status).toBe('completed')
      expect(asker.asked).toHaveLength(1)
      const output = bed.model.toolOutputFor('call_scripted_1')
      expect(output).not.toContain(KEY)
      expect(output).toMatch(/id_ed25519: No such file or directory/)
      expect(realpathSync(join(bed.workspace, 'made.txt'))).toBe(join(bed.workspace, 'made.txt'))
    },
  )

  it(
    'claude-agent-acp runs contained: the command the person allowed prints nothing of the key, and writes its workspace',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const asker = new ScriptedAsker('allow-once')
      const { bed, session } = await claudeContained.start([], asker, 'ask-for-approval')
      bed.messages.script([
        { type: 'bash', command: `cat ${keyFile}; echo written > made.txt` },
        { type: 'reply', text: 'done' },
      ])
      const outcome = await session.runTurn('please do the scripted thing')
      expect(outcome.status).toBe('completed')
      expect(asker.asked).toHaveLength(1)
      const output = JSON.stringify(bed.messages.toolResultFor('toolu_scripted_1'))
      expect(output).not.toContain(KEY)
      expect(output).toMatch(/id_ed25519: No such file or directory/)
      expect(readFileSync(join(bed.workspace, 'made.txt'), 'utf8')).toBe('written\n')
    },
  )
})
