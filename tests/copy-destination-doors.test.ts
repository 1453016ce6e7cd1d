import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import { MAX_COPIED_PLACES } from '../src/runtime/policy/copied-places.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { mcpTouch, personOnlyReason } from '../src/runtime/policy/person-only.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../src/runtime/test-support/sqlite-stores.ts'
import {
  agentCommandRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { openGatewayCall, shellToolRequest } from './support/gateway-call-request.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A copy, a move or a link writes places none of its words names: `cp
 * tmpl/tasks.json .vscode/` writes `.vscode/tasks.json`, `cp -r tmpl/git
 * ~/.config/` writes git's global config, `mv tmpl/autostart ~/.config/`
 * an autostart entry. One table of such commands (HOME standing for a
 * home folder beside the workspace), walked through every door that may
 * answer without the person: the rule as Assent's own command, an
 * external agent's command and an MCP shell tool read it; an external
 * agent's command (Codex's, and an ACP agent's own tool's) through the
 * approver webhook and a reviewer that allows everything; and an MCP shell tool's grant, through the gateway. None may
 * answer a row; each answers the controls, copies that write nothing only
 * a person may change.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 5))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

const ROWS = [
  'cp tmpl/tasks.json .vscode/',
  'cp -r tmpl/git HOME/.config/',
  'mv tmpl/autostart HOME/.config/',
  'rsync -a tmpl/git HOME/.config/',
  'install -t .vscode tmpl/tasks.json',
  'cp -t .vscode tmpl/tasks.json',
  'cp --target-directory=.vscode tmpl/tasks.json',
  'mv -t HOME/.config tmpl/autostart',
  'ln -s ../tmpl/tasks.json .vscode/',
  'ln -sr tmpl/tasks.json .vscode/',
  'ln -s ../../tmpl/vscode docs/sub/.vscode',
  'ln tmpl/tasks.json .vscode/',
  'ln -s $PWD/tmpl/git HOME/.config/',
  'cp -rT tmpl/home-config HOME/.config',
  'cp -r --no-target-directory tmpl/home-config HOME/.config',
  'rsync -a tmpl/home-config/ HOME/.config/',
  'cd tmpl && cp --parents autostart/agent.desktop HOME/.config/',
  'cp -r tmpl/project docs/',
  'cp tmpl/tasks.json docs/ .vscode/',
  'cp tmpl/task?.json .vscode/',
  'cp tmpl/tasks.json {docs,.vscode}/',
  'cp --frobnicate tmpl/tasks.json .vscode/',
  'sudo -u me cp tmpl/tasks.json .vscode/',
  "bash -c 'cp tmpl/tasks.json .vscode/'",
  'cp -r tmpl/big HOME/',
] as const

const CONTROLS = [
  'cp tmpl/tasks.json docs/',
  'cp -r tmpl/git backup/',
  'mv tmpl/autostart backup/',
  'rsync -a tmpl/home-config/ backup/',
  'install -m 644 -t backup tmpl/tasks.json',
  'ln -sr tmpl/tasks.json docs/',
  'cp -rT tmpl/home-config backup',
  'cp -r tmpl/vscode backup/',
] as const

/** The workspace the table is read in, and a home folder beside it. */
function lay(workspace: string, home: string): void {
  const files: Record<string, string> = {
    'tmpl/git/config': '[core]\n\thooksPath = /tmp/evil-hooks\n',
    'tmpl/autostart/agent.desktop': '[Desktop Entry]\nExec=id\n',
    'tmpl/home-config/autostart/agent.desktop': '[Desktop Entry]\nExec=id\n',
    'tmpl/tasks.json': '{"tasks":[{"command":"id","runOptions":{"runOn":"folderOpen"}}]}\n',
    'tmpl/vscode/tasks.json': '{"tasks":[{"command":"id","runOptions":{"runOn":"folderOpen"}}]}\n',
    '.vscode/tasks.json': '{"version":"2.0.0","tasks":[]}\n',
    'docs/ok.txt': 'inside\n',
    'docs/sub/ok.txt': 'inside\n',
  }
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, file)), { recursive: true })
    writeFileSync(join(workspace, file), text)
  }
  // A folder whose `.vscode` is a link to the editor settings beside it:
  // copied, the link leads to `tasks.json` from the copy's `.vscode`.
  mkdirSync(join(workspace, 'tmpl/project'))
  symlinkSync('../vscode', join(workspace, 'tmpl/project/.vscode'))
  // More than the rule follows a copy into.
  mkdirSync(join(workspace, 'tmpl/big'))
  for (let i = 0; i <= MAX_COPIED_PLACES; i += 1) {
    writeFileSync(join(workspace, 'tmpl/big', `f${i}`), '')
  }
  // A home with no `.config` yet: the copy makes it, so no word names a
  // folder that is there to take relative paths from.
  mkdirSync(home)
  for (const folder of ['backup', 'build']) mkdirSync(join(workspace, folder))
}

const spelled = (row: string, home: string) => row.replaceAll('HOME', home)

describe('the rule every door applies follows a copy to where it writes', () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  let home: string
  beforeAll(() => {
    place = askerWorldInTempWorkspace('assent-copy-rule-', MAC, AGENT)
    home = join(place.root, 'home')
    lay(place.workspace, home)
  })
  afterAll(() => place.dispose())

  const touches = (line: string) => {
    const workspace = place.workspace
    return [
      { toolName: 'run_command', arguments: { argv: ['/bin/sh', '-c', line] }, workspace },
      {
        toolName: 'agent_command',
        arguments: { commandLine: line, argv: null, cwd: workspace },
        workspace,
      },
      mcpTouch({ serverId: 'shell', toolName: 'run', arguments: { command: line } }, workspace),
    ]
  }

  it.each(ROWS)('needs the person for %s', (row) => {
    for (const touch of touches(spelled(row, home))) {
      expect(personOnlyReason(touch), touch.toolName).not.toBeNull()
    }
  })

  it.each(CONTROLS)('lets a door answer for %s', (row) => {
    for (const touch of touches(spelled(row, home))) {
      expect(personOnlyReason(touch), touch.toolName).toBeNull()
    }
  })
})

describe("an external agent's copy, through the webhook and a reviewer that allow everything", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  let home: string
  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-copy-doors-', MAC, AGENT)
    home = join(place.root, 'home')
    lay(place.workspace, home)
  })
  afterEach(() => place.dispose())

  it.each(CONTROLS)('control: each answers %s', async (row) => {
    for (const decider of ALLOWING_DECIDERS) {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      await answersEach(asker, agentCommandRequests(spelled(row, home), place.workspace))
    }
    expect(place.world.stores.approvals.listByRoom(ROOM_ID)).toMatchObject(
      ALLOWING_DECIDERS.flatMap((decider) => [decider, decider]).map((decider) => ({
        status: 'allowed',
        decidedBy: decider.by,
      })),
    )
  })

  it.each(ROWS)('neither answers %s: the person is asked', (row) =>
    commandLeftToThePersonByEach(place.world, spelled(row, home), place.workspace),
  )
})

describe("an MCP shell tool's grant, through the gateway", () => {
  const HASH = 'd'.repeat(64)
  let harness: RuntimeHarness
  let home: string

  /** A gated call of a shell server's tool, as assent-gateway sends one. */
  const shellCall = (row: string) => shellToolRequest(harness.workspace, spelled(row, home), HASH)

  beforeAll(async () => {
    harness = await startInProcessRuntime({})
    home = join(harness.root, 'home')
    lay(harness.workspace, home)
    // The person allows the shell tool always, on a copy into docs.
    const first = await openGatewayCall(harness, shellCall('cp docs/ok.txt build/'))
    expect(first.status).toBe('pending')
    const view = await harness.client.getApproval(first.approvalId ?? '')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    expect(await roomGrants(harness, first.roomId)).toHaveLength(1)
  })
  afterAll(async () => {
    await harness?.close()
  })

  it.each(CONTROLS)('control: the grant answers %s', async (row) => {
    expect(await openGatewayCall(harness, shellCall(row))).toMatchObject({ status: 'allowed' })
  })

  // A word leading outside the workspace is a private read for an MCP
  // call, which no grant answers whatever the rule says (private-read-
  // approval.ts): only the rows inside it show the rule at this door.
  const INSIDE = ROWS.filter((row) => !row.includes('HOME') && !row.includes('../'))

  it.each(INSIDE)('the grant never answers %s: the call waits for the person', async (row) => {
    const opened = await openGatewayCall(harness, shellCall(row))
    expect({ status: opened.status, grantId: opened.grantId }).toEqual({
      status: 'pending',
      grantId: null,
    })
    const view = await harness.client.getApproval(opened.approvalId ?? '')
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })
})
