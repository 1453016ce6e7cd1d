import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import { runGatedMcpCall, type McpConsentPort } from '../src/runtime/mcp/gated-mcp-call.ts'
import { mcpApprovalFields } from '../src/runtime/mcp/gated-mcp-call.ts'
import { runGoverned } from '../src/runtime/mcp/governed-mcp-action.ts'
import type { McpServer } from '../src/runtime/mcp/mcp-connection.ts'
import { keepAsAssentOwn } from '../src/runtime/policy/assent-own-paths.ts'
import { FOLDER_LINKS_ENTRIES } from '../src/runtime/policy/folder-links.ts'
import { mcpTouch } from '../src/runtime/policy/person-only.ts'
import { grantForAction, keptFromDeciders } from '../src/runtime/policy/private-read-approval.ts'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { varTmpFolder } from '../src/runtime/sandbox/test-support/var-tmp-folder.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  askerWorldInTempWorkspace,
  codexRequest,
} from '../src/runtime/test-support/external-asker.ts'
import { commandLeftToThePersonByEach, leftToThePersonByEach } from './support/allowing-deciders.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import { countingConnection } from './support/mcp-stand-ins.ts'

/**
 * A read that may take a folder whole (a server's `search_files`, a
 * `resources/read` of a `file:` folder, an agent's own read tool, `grep -R`)
 * goes through every symbolic link in it. A folder inside the workspace
 * holding a link out (`keys -> ~/.ssh`, `h -> ../..`, one inside
 * `node_modules`, a chain of links, a link to a folder inside that holds
 * one out, a link to Assent's data) reads what lies outside, so such a read
 * is private: no read-only manifest runs it unasked, and no grant,
 * reviewer or webhook answers it; a folder too large to walk whole is
 * private too, since what lies past the walk is not known. One table of
 * such folders, walked through every door a read of a folder comes
 * through, with a folder whose only link stays inside as the control: a
 * read-only server's tool call (a room's and the gateway's; one globbing in
 * the folder, too), the gateway's
 * `resources/read`, an "always allow" for the tool, the reviewer and the
 * webhook, an ACP agent's own read, an agent's command, and bubblewrap,
 * which shows a contained command the place a link leads to hidden.
 * (Assent's own `list_dir` follows no link, and its `read_file` opens one
 * file with no link followed: neither takes a folder whole.)
 */

const HAS_BWRAP = await bubblewrapRequired()
/** Under /var/tmp: the sandbox gives a command a /tmp of its own. */
const scratch = varTmpFolder('assent-folder-links-sandbox-')

const MAC = new IntegrityMac(Buffer.alloc(32, 41))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

let home: string
let appData: string

interface Row {
  holds: string
  /** Makes the row's folder in `workspace`; the folder a read names. */
  make: (workspace: string) => string
  /** A read of the folder whole, links followed, is private. */
  private: boolean
  /** A read of the workspace whole reaches the person's credentials or
   *  Assent's data (or cannot tell), which makes an agent's command the
   *  person's. (A call naming no folder is judged by its words alone: a
   *  walk of the workspace for every MCP call is left out, a limit
   *  docs/security-model.md states.) */
  credentials: boolean
}

function link(target: string, at: string): void {
  mkdirSync(path.dirname(at), { recursive: true })
  symlinkSync(target, at)
}

function docs(workspace: string): string {
  const folder = path.join(workspace, 'docs')
  mkdirSync(folder, { recursive: true })
  writeFileSync(path.join(folder, 'readme.md'), 'notes\n')
  return folder
}

/** The row whose folder holds no link, only more entries than are walked. */
const TOO_MANY = 'more entries than the walk reads'

const ROWS: Row[] = [
  {
    holds: 'a link out to the keys (keys -> ~/.ssh)',
    make: (ws) => {
      link(path.join(home, '.ssh'), path.join(docs(ws), 'keys'))
      return path.join(ws, 'docs')
    },
    private: true,
    credentials: true,
  },
  {
    holds: 'a link climbing out (h -> ../..)',
    make: (ws) => {
      link('../..', path.join(docs(ws), 'h'))
      return path.join(ws, 'docs')
    },
    private: true,
    credentials: true,
  },
  {
    holds: 'a link inside node_modules',
    make: (ws) => {
      docs(ws)
      writeFileSync(path.join(ws, 'package.json'), '{}\n')
      link(path.join(home, '.ssh'), path.join(ws, 'node_modules', 'pkg', 'keys'))
      return ws
    },
    private: true,
    credentials: true,
  },
  {
    holds: 'a chain of links (a -> ../relay, relay -> ~/.ssh)',
    make: (ws) => {
      link('../relay', path.join(docs(ws), 'a'))
      link(path.join(home, '.ssh'), path.join(ws, 'relay'))
      return path.join(ws, 'docs')
    },
    private: true,
    credentials: true,
  },
  {
    holds: 'a link to a folder inside that holds a link out',
    make: (ws) => {
      link('../build', path.join(docs(ws), 'out'))
      link(home, path.join(ws, 'build', 'h'))
      return path.join(ws, 'docs')
    },
    private: true,
    credentials: true,
  },
  {
    holds: "a link to Assent's data",
    make: (ws) => {
      link(appData, path.join(docs(ws), 'd'))
      return path.join(ws, 'docs')
    },
    private: true,
    credentials: true,
  },
  {
    holds: TOO_MANY,
    make: (ws) => {
      const big = path.join(ws, 'big')
      mkdirSync(big, { recursive: true })
      for (let i = 0; i <= FOLDER_LINKS_ENTRIES; i += 1) writeFileSync(path.join(big, `${i}`), '')
      return ws
    },
    private: true,
    credentials: true,
  },
  {
    holds: 'a link out to another project (notes -> ../../elsewhere)',
    make: (ws) => {
      const elsewhere = path.join(path.dirname(ws), 'elsewhere')
      // Two levels below the link, where only a glob's walk finds it.
      mkdirSync(path.join(elsewhere, 'drafts'), { recursive: true })
      writeFileSync(path.join(elsewhere, 'drafts', 'plan.md'), 'another project\n')
      link('../../elsewhere', path.join(docs(ws), 'notes'))
      return path.join(ws, 'docs')
    },
    private: true,
    credentials: false,
  },
  {
    holds: 'a link that stays inside (control)',
    make: (ws) => {
      mkdirSync(path.join(ws, 'other'), { recursive: true })
      link('../other', path.join(docs(ws), 'l'))
      return path.join(ws, 'docs')
    },
    private: false,
    credentials: false,
  },
]

const homeBefore = process.env.HOME
afterAll(() => {
  process.env.HOME = homeBefore
})

/** The person's home folder and Assent's data beside the workspace (in
 *  `root`), as the runtime finds them. */
function keysBeside(root: string): void {
  home = path.join(root, 'home')
  appData = path.join(root, 'app', 'data')
  mkdirSync(path.join(home, '.ssh'), { recursive: true })
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n')
  mkdirSync(appData, { recursive: true })
  writeFileSync(path.join(appData, 'assent.db'), 'PRIVATE data\n')
  process.env.HOME = home
  keepAsAssentOwn([appData])
}

/** A read-only server working in `workspace`, whose one tool reads a path. */
function readOnlyServer(workspace: string): McpServer {
  return {
    id: 'files',
    name: 'Files',
    transport: { type: 'stdio', command: 'files', args: [], env: {}, cwd: workspace },
    allowed_tools: ['search_files'],
    requires_approval: false,
    manifest: { readonly: true },
  } as McpServer
}

/** What the room's and the gateway's consent port would do with the call:
 *  whether an "always allow" the person gave for the tool answers it, and
 *  whether the reviewer and the webhook would hear of it. Denies, so
 *  nothing runs. */
function judgingConsent(workspace: string): {
  port: McpConsentPort
  seen: { grant: boolean; deciders: boolean }[]
} {
  const seen: { grant: boolean; deciders: boolean }[] = []
  const port: McpConsentPort = {
    ask: (request) => {
      const action = { ...mcpApprovalFields(request), workingDirectory: workspace }
      const grant = grantForAction(mcpTouch(request, workspace), action, 'on-request', () => ({
        id: 'grant-1',
      }))
      const kept = keptFromDeciders(action, workspace)
      seen.push({ grant: grant !== undefined, deciders: kept === null })
      return Promise.resolve({ status: 'denied', reason: 'no', report: () => Promise.resolve() })
    },
  }
  return { port, seen }
}

const SEARCH = { name: 'search_files', description: 'Searches', inputSchema: { type: 'object' } }

/** Whether a read-only server's tool call, and the gateway's
 *  `resources/read`, of `folder` ran with nobody asked. */
async function mcpDoors(workspace: string, folder: string) {
  const server = readOnlyServer(workspace)
  const { connection, runs } = countingConnection(server, SEARCH)
  const call = judgingConsent(workspace)
  await runGatedMcpCall(connection, 'search_files', { path: folder }, call.port, workspace).catch(
    () => undefined,
  )
  let reads = 0
  const resource = judgingConsent(workspace)
  await runGoverned({
    consent: resource.port,
    server,
    method: 'resources/read',
    args: { uri: `file://${folder}` },
    workspace,
    run: () => {
      reads += 1
      return Promise.resolve('read')
    },
    outcome: (result) => result,
  }).catch(() => undefined)
  // A glob in the folder: the server walks the folder to match it.
  const globbed = countingConnection(server, SEARCH)
  await runGatedMcpCall(
    globbed.connection,
    'search_files',
    { pattern: path.join(folder, '**', '*.md') },
    judgingConsent(workspace).port,
    workspace,
  ).catch(() => undefined)
  return {
    'tool call ran unasked': runs() === 1,
    'resources/read ran unasked': reads === 1,
    'a glob in the folder ran unasked': globbed.runs() === 1,
  }
}

/** The row's world and folder, made afresh for each test of the block
 *  that calls it. */
function eachWithRow(row: Row): {
  place: () => ReturnType<typeof askerWorldInTempWorkspace>
  folder: () => string
} {
  let place: ReturnType<typeof askerWorldInTempWorkspace> | undefined
  let folder = ''
  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-folder-links-', MAC, AGENT)
    keysBeside(place.root)
    folder = row.make(place.workspace)
  })
  afterEach(() => place?.dispose())
  return {
    place: () => {
      if (place === undefined) throw new Error('no world made for the row')
      return place
    },
    folder: () => folder,
  }
}

describe.each(ROWS)('a folder holding $holds', (row) => {
  const at = eachWithRow(row)

  it('runs unasked under a read-only manifest only when it stays inside', async () => {
    expect(await mcpDoors(at.place().workspace, at.folder())).toEqual({
      'tool call ran unasked': !row.private,
      'resources/read ran unasked': !row.private,
      'a glob in the folder ran unasked': !row.private,
    })
  })

  it('is answered by a grant, the reviewer or the webhook only when it stays inside', async () => {
    const { workspace } = at.place()
    const server = { ...readOnlyServer(workspace), requires_approval: true }
    const consent = judgingConsent(workspace)
    const { connection } = countingConnection(server, SEARCH)
    const args = { path: at.folder() }
    await runGatedMcpCall(connection, 'search_files', args, consent.port, workspace).catch(
      () => undefined,
    )
    expect(consent.seen).toEqual([{ grant: !row.private, deciders: !row.private }])
  })
})

// Rows read whole reach outside: an agent's own read of the folder, and
// `grep -R` in its command where the workspace reaches the person's keys.
describe.each(ROWS.filter((row) => row.private))('a folder holding $holds', (row) => {
  const at = eachWithRow(row)

  it('as an ACP agent’s own read, is left to the person', () => {
    const folder = at.folder()
    return leftToThePersonByEach(at.place().world, () => ({
      ...codexRequest({
        kind: 'tool',
        toolKind: 'read',
        title: `Read ${folder}`,
        input: { path: folder },
        locations: [folder],
      }),
      protocol: 'acp',
    }))
  })
})

describe.each(ROWS.filter((row) => row.credentials))('a folder holding $holds', (row) => {
  const at = eachWithRow(row)

  it('as grep -R in an agent’s command, is left to the person', () =>
    commandLeftToThePersonByEach(
      at.place().world,
      `grep -R PRIVATE ${at.folder()}`,
      at.place().workspace,
    ))
})

describe.each(ROWS.filter((row) => row.holds !== TOO_MANY))('a folder holding $holds', (row) => {
  // Run in bubblewrap, a command that follows every link reads the place
  // the link leads to as the sandbox shows it: hidden. In full access,
  // where nothing contains it, the same command reads the key through the
  // link, so the row's link does lead there.
  // (The row holding only many entries has nothing to show there.)
  it.runIf(HAS_BWRAP)('read by grep -R in the sandbox, shows nothing private', async () => {
    const base = path.join(scratch(), `row-${ROWS.indexOf(row)}`)
    const workspace = path.join(base, 'ws')
    mkdirSync(workspace, { recursive: true })
    keysBeside(base)
    const named = row.make(workspace)
    const sandbox = new CommandSandbox({
      home,
      env: { ...process.env, HOME: home },
      assentPrivate: [appData],
    })
    const { sh } = sandboxedRun(() => ({ workspace, sandbox }))
    const contained = await sh(`grep -rR PRIVATE ${named} || true`, 'workspace-write')
    expect(contained.output).not.toContain('PRIVATE')
    const uncontained = await sh(`grep -rR PRIVATE ${named} || true`, 'danger-full-access')
    expect(uncontained.output.includes('PRIVATE'), uncontained.output).toBe(row.credentials)
  })
})
