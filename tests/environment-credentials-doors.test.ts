import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_TOOL_CALL_TOOL,
  type AgentIdentity,
} from '../src/contracts/agent-request.ts'
import { keepCredentialPlacesOf } from '../src/runtime/policy/environment-credentials.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from '../src/runtime/policy/person-only.ts'
import { judgedPrivateRead } from '../src/runtime/policy/private-read-approval.ts'
import { runsUnasked } from '../src/runtime/mcp/mcp-call-judgment.ts'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  askerWorldInTempWorkspace,
  codexRequest,
} from '../src/runtime/test-support/external-asker.ts'
import { ALLOWING_DECIDERS, leftToThePersonByEach } from './support/allowing-deciders.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

/**
 * The person's environment moves a credential place away from its usual
 * name: `GNUPGHOME=/srv/me/gnupg`, `KUBECONFIG`, `XDG_CONFIG_HOME=~/.xdg`
 * (GitHub's token is then `~/.xdg/gh/hosts.yml`), `DOCKER_CONFIG` in the
 * project. The table knows `~/.gnupg`, not where the variable says. One
 * table of such places, each holding a fixture token, walked through
 * every door that reads without the person: the rule each door applies
 * (a grant, the reviewer, the webhook: person-only; a read-only MCP
 * manifest and an ACP agent's own read: the private-read rule), an
 * external agent's command that the reviewer or the webhook would allow,
 * and Assent's own command in real bubblewrap, with controls each door
 * still answers.
 */

const KEY = 'FIXTURE-TOKEN-not-a-real-one'
const MAC = new IntegrityMac(Buffer.alloc(32, 29))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

// Under /var/tmp: the sandbox gives a command a /tmp of its own.
const root = realpathSync(mkdtempSync(path.join('/var/tmp', 'assent-env-credentials-')))
const home = path.join(root, 'home')
const elsewhere = path.join(root, 'srv')
const workspace = path.join(root, 'ws')

/** The variables, as the person's login set them. */
const ENV: NodeJS.ProcessEnv = {
  HOME: home,
  GNUPGHOME: path.join(elsewhere, 'gnupg'),
  KUBECONFIG: [path.join(elsewhere, 'kube', 'config'), path.join(elsewhere, 'kube', 'b')].join(
    path.delimiter,
  ),
  XDG_CONFIG_HOME: path.join(home, '.xdg'),
  AWS_SHARED_CREDENTIALS_FILE: path.join(elsewhere, 'aws-credentials'),
  DOCKER_CONFIG: path.join(workspace, '.dockerconf'),
  XAUTHORITY: path.join(elsewhere, 'gdm', 'Xauthority'),
}

/** Each place's file, outside the workspace unless said. */
const PLACES: readonly { file: string; variable: string; inWorkspace?: true }[] = [
  { file: path.join(elsewhere, 'gnupg', 'private-keys-v1.d', 'k.key'), variable: 'GNUPGHOME' },
  { file: path.join(elsewhere, 'kube', 'config'), variable: 'KUBECONFIG' },
  { file: path.join(home, '.xdg', 'gh', 'hosts.yml'), variable: 'XDG_CONFIG_HOME' },
  { file: path.join(elsewhere, 'aws-credentials'), variable: 'AWS_SHARED_CREDENTIALS_FILE' },
  { file: path.join(elsewhere, 'gdm', 'Xauthority'), variable: 'XAUTHORITY' },
  {
    file: path.join(workspace, '.dockerconf', 'config.json'),
    variable: 'DOCKER_CONFIG',
    inWorkspace: true,
  },
]
const OUTSIDE = PLACES.filter((place) => place.inWorkspace !== true)

/** Beside them, nothing secret: each door still answers. */
const CONTROLS = [path.join(elsewhere, 'notes.txt'), path.join(workspace, 'readme.md')]

const COMMANDS: readonly ((file: string) => string)[] = [
  (file) => `cat ${file}`,
  (file) => `git diff --no-index /dev/null ${file}`,
  (file) => `base64 ${file}`,
  (file) => `cp ${file} copy.txt`,
]

beforeAll(() => {
  for (const file of [...PLACES.map((place) => place.file), ...CONTROLS]) {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, `${KEY}\n`)
  }
  keepCredentialPlacesOf(ENV, home)
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('the rule every door applies', () => {
  const asAgent = (commandLine: string): ActionTouch => ({
    toolName: AGENT_COMMAND_TOOL,
    arguments: { commandLine, argv: null, cwd: workspace },
    workspace,
  })
  const mcpRead = (file: string) =>
    mcpTouch({ serverId: 'fs', toolName: 'read_text_file', arguments: { path: file } }, workspace)
  const acpRead = (file: string): ActionTouch => ({
    toolName: AGENT_TOOL_CALL_TOOL,
    arguments: { toolKind: 'read', title: 'Read', input: { path: file }, locations: [file] },
    workspace,
  })
  const readOnlyRunsUnasked = (file: string) =>
    runsUnasked({ requires_approval: false }, mcpRead(file), 'read_text_file', false)
  const readFile = (file: string) =>
    judgedPrivateRead(
      {
        kind: 'read',
        toolName: 'read_file',
        arguments: { path: file },
        workingDirectory: workspace,
      },
      workspace,
    )

  it.each(PLACES)("needs the person for $variable's place, named by a command", ({ file }) => {
    for (const line of COMMANDS) {
      expect(personOnlyReason(asAgent(line(file))), line(file)).toMatchObject({
        class: 'credentials',
      })
    }
  })

  it.each(PLACES)(
    "keeps $variable's place from every decider but the person, read by a tool",
    ({ file, variable }) => {
      // A grant, the reviewer and the webhook: the person-only rule, which
      // says which place it is and why.
      expect(personOnlyReason(mcpRead(file))?.reason).toContain(variable)
      expect(personOnlyReason(acpRead(file))?.reason).toContain(variable)
      // A read-only manifest's call, which runs unasked otherwise.
      expect(readOnlyRunsUnasked(file)).toBe(false)
      // The built-in read: kept from every decider but the person.
      expect(readFile(file)).not.toBeNull()
    },
  )

  it('control: a file beside them is still a door to answer', () => {
    const [outside = '', inside = ''] = CONTROLS
    expect(personOnlyReason(asAgent(`cat ${outside}`))).toBeNull()
    expect(personOnlyReason(mcpRead(inside))).toBeNull()
    expect(readOnlyRunsUnasked(inside)).toBe(true)
    expect(readFile(inside)).toBeNull()
  })
})

describe("an external agent's command, answered by the reviewer or the webhook", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const command = (line: string) =>
    codexRequest({ kind: 'command', commandLine: line, argv: null, cwd: place.workspace })

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-env-credentials-asker-', MAC, AGENT)
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)('control: $by answers a read beside them', async (decider) => {
    const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
    const line = `cat ${CONTROLS[0] ?? ''}`
    expect(await asker.ask(command(line), new AbortController().signal)).toBe('allow-once')
  })

  it.each(OUTSIDE)("is left to the person for $variable's place", ({ file }) =>
    leftToThePersonByEach(place.world, () => command(`base64 ${file}`)),
  )
})

const HAS_BWRAP = await bubblewrapRequired()

describe.runIf(HAS_BWRAP)("Assent's own command, in the sandbox", () => {
  let sandbox: CommandSandbox
  beforeAll(async () => {
    await mkdir(workspace, { recursive: true })
    sandbox = new CommandSandbox({ home, env: { ...process.env, ...ENV }, assentPrivate: [] })
  })
  const { sh } = sandboxedRun(() => ({ workspace, sandbox }))

  it('control: reads a file beside them', async () => {
    const result = await sh(`cat ${CONTROLS[0] ?? ''}; echo done`, 'workspace-write')
    expect(result.output).toContain(KEY)
  })

  it.each(PLACES)("cannot read $variable's place", async ({ file }) => {
    const result = await sh(`cat ${file}; echo done`, 'workspace-write')
    expect(result.output).toContain('done')
    expect(result.output).not.toContain(KEY)
  })
})
