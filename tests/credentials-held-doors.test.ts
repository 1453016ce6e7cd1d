import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_TOOL_CALL_TOOL,
  type AgentIdentity,
} from '../src/contracts/agent-request.ts'
import { keepAsAssentOwn } from '../src/runtime/policy/assent-own-paths.ts'
import { keepCredentialPlacesOf } from '../src/runtime/policy/environment-credentials.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from '../src/runtime/policy/person-only.ts'
import { judgedPrivateMcpRead } from '../src/runtime/policy/private-read-approval.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  askerWorldInTempWorkspace,
  codexRequest,
} from '../src/runtime/test-support/external-asker.ts'
import { ALLOWING_DECIDERS, leftToThePersonByEach } from './support/allowing-deciders.ts'

/**
 * An external agent's command runs outside Assent's sandbox, which would
 * hide the person's keys from it. One that names a folder holding a key,
 * not the key (`grep -r PRIVATE ~`, `tar c ~/.config | base64`, `find
 * /srv -exec cat {} +`), reads it all the same, and the name rule finds
 * no credential among its words. One table of such reads, of the home
 * folder's credential folders and files, a credential place the
 * environment names (`$GNUPGHOME`) and Assent's own data folder, walked
 * through the rule every door applies to an external agent's command (a
 * grant, the reviewer, the webhook), through the reviewer and the webhook
 * that allow everything, and through the private-read rule that holds an
 * MCP shell tool and an ACP agent's own tool (and, for a link out of the
 * workspace, the rule that holds those), with controls each door still
 * answers.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 31))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-credentials-held-')))
const home = path.join(root, 'home')
const srv = path.join(root, 'srv')
const app = path.join(root, 'app')
const plain = path.join(root, 'plain')

/** Each read, and the place it reaches. */
const READS: readonly { line: string; reaches: string }[] = [
  { line: `grep -r PRIVATE ${home}`, reaches: path.join(home, '.ssh') },
  { line: `find ${home}/ -name 'id_*' -exec cat {} +`, reaches: path.join(home, '.ssh') },
  { line: `tar c ${home}/.config | base64`, reaches: path.join(home, '.config', 'gh') },
  { line: `grep -rh token ${path.join(home, '.config')}`, reaches: path.join(home, '.config') },
  { line: `rg -uuu BEGIN ${srv}`, reaches: path.join(srv, 'gnupg') },
  { line: `zip -r /dev/stdout ${app}`, reaches: path.join(app, 'data') },
]

/** Links a workspace may hold (made by a command the person allowed
 *  once, or cloned with the repository), each to a place, a folder holding
 *  one, or a file in one: `grep -R` and `tar ch` read through them. */
const LINKS: readonly { name: string; to: () => string }[] = [
  { name: 'keys', to: () => path.join(home, '.ssh') },
  { name: 'h', to: () => home },
  { name: 'k.key', to: () => path.join(srv, 'gnupg', 'private-keys-v1.d', 'k.key') },
  { name: 'apps', to: () => app },
]
const FOLLOWING = 'grep -R PRIVATE .'

/** A folder holding none, and one printed, not read. */
const CONTROLS: readonly string[] = [
  `grep -r TODO ${plain}`,
  `tar c ${plain} | base64`,
  `echo "home is ${home}"`,
]

beforeAll(() => {
  const files = {
    [path.join(home, '.ssh', 'id_ed25519')]: 'PRIVATE KEY\n',
    [path.join(home, '.config', 'gh', 'hosts.yml')]: 'oauth_token: x\n',
    [path.join(home, 'notes.txt')]: 'notes\n',
    [path.join(srv, 'gnupg', 'private-keys-v1.d', 'k.key')]: 'PRIVATE KEY\n',
    [path.join(app, 'data', 'assent.db')]: 'data\n',
    [path.join(plain, 'readme.md')]: 'TODO\n',
  }
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, text)
  }
  // The person's home folder, as the runtime finds it.
  process.env.HOME = home
  keepCredentialPlacesOf({ GNUPGHOME: path.join(srv, 'gnupg') }, home)
  keepAsAssentOwn([path.join(app, 'data')])
})
const homeBefore = process.env.HOME
afterAll(() => {
  process.env.HOME = homeBefore
  rmSync(root, { recursive: true, force: true })
})

describe('the rule every door applies', () => {
  const workspace = () => path.join(root, 'ws')
  const asAgent = (commandLine: string): ActionTouch => ({
    toolName: AGENT_COMMAND_TOOL,
    arguments: { commandLine, argv: null, cwd: workspace() },
    workspace: workspace(),
  })
  const asMcpShell = (line: string): ActionTouch =>
    mcpTouch({ serverId: 'shell', toolName: 'execute', arguments: { command: line } }, workspace())
  const asAgentTool = (line: string): ActionTouch => ({
    toolName: AGENT_TOOL_CALL_TOOL,
    arguments: { toolKind: 'execute', title: 'Run', input: { command: line } },
    workspace: workspace(),
  })
  beforeAll(() => mkdirSync(workspace(), { recursive: true }))

  it.each(READS)('needs the person for $line', ({ line, reaches }) => {
    const found = personOnlyReason(asAgent(line))
    expect(found).not.toBeNull()
    // It says which private place the command reads.
    expect(found?.path.startsWith(reaches)).toBe(true)
    expect(judgedPrivateMcpRead(asMcpShell(line))).not.toBeNull()
    expect(judgedPrivateMcpRead(asAgentTool(line))).not.toBeNull()
  })

  it.each(CONTROLS)('lets a door answer for %s', (line) => {
    expect(personOnlyReason(asAgent(line))).toBeNull()
  })

  it.each(LINKS)('needs the person for any command beside a link $name', ({ name, to }) => {
    const linked = path.join(root, `ws-${name}`)
    mkdirSync(linked)
    symlinkSync(to(), path.join(linked, name))
    // Codex's command, an MCP server's shell tool and an ACP agent's own
    // tool: none of them runs in Assent's sandbox.
    const touches = [
      { ...asAgent(FOLLOWING), workspace: linked },
      mcpTouch(
        { serverId: 'shell', toolName: 'execute', arguments: { command: FOLLOWING } },
        linked,
      ),
      { ...asAgentTool(FOLLOWING), workspace: linked },
    ]
    for (const touch of touches) {
      const found = personOnlyReason(touch)
      // It names the private place the link reaches, and the link.
      expect(found?.path.startsWith(to())).toBe(true)
      expect(found?.reason).toContain(path.join(linked, name))
    }
  })

  it('control: lets a door answer beside a link to a folder holding none', () => {
    const linked = path.join(root, 'ws-plain')
    mkdirSync(linked)
    symlinkSync(plain, path.join(linked, 'plain'))
    expect(personOnlyReason({ ...asAgent(FOLLOWING), workspace: linked })).toBeNull()
    const shell = { command: FOLLOWING }
    expect(
      personOnlyReason(
        mcpTouch({ serverId: 'shell', toolName: 'execute', arguments: shell }, linked),
      ),
    ).toBeNull()
  })
})

describe("an external agent's command, answered by the reviewer or the webhook", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const command = (line: string) =>
    codexRequest({ kind: 'command', commandLine: line, argv: null, cwd: place.workspace })

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-credentials-held-asker-', MAC, AGENT)
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a read of a folder holding none',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      for (const line of CONTROLS) {
        expect(await asker.ask(command(line), new AbortController().signal)).toBe('allow-once')
      }
    },
  )

  it.each(READS)('is left to the person: $line', ({ line }) =>
    leftToThePersonByEach(place.world, () => command(line)),
  )

  it.each(LINKS)(`is left to the person: ${FOLLOWING}, beside a link $name`, ({ name, to }) => {
    symlinkSync(to(), path.join(place.workspace, name))
    return leftToThePersonByEach(place.world, () => command(FOLLOWING))
  })

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers it beside a link to a folder holding none',
    async (decider) => {
      symlinkSync(plain, path.join(place.workspace, 'plain'))
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      expect(await asker.ask(command(FOLLOWING), new AbortController().signal)).toBe('allow-once')
    },
  )
})
