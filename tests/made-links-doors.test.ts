import { execFileSync } from 'node:child_process'
import { existsSync, lstatSync, readlinkSync } from 'node:fs'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AGENT_TOOL_CALL_TOOL, type AgentIdentity } from '../src/contracts/agent-request.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from '../src/runtime/policy/person-only.ts'
import { judgedPrivateMcpRead } from '../src/runtime/policy/private-read-approval.ts'
import { AGENT_COMMAND_TOOL } from '../src/contracts/agent-request.ts'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { varTmpFolder } from '../src/runtime/sandbox/test-support/var-tmp-folder.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import { runCommandTool } from '../src/runtime/tools/run-command.ts'
import { commandLeftToThePersonByEach } from './support/allowing-deciders.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

/**
 * A contained command may make a symbolic link to anything: a link is only
 * a name. Inside the sandbox it leads to what the sandbox keeps read-only
 * or hides, and is harmless; but it stays once the command has ended, and
 * the person's own tools (an editor's search and replace, `zip -r`), or a
 * later call that reads or writes a folder without naming what is in it,
 * follow it to the keys the sandbox hid or the hooks it kept. One table of
 * such links, each made by a contained command in real bubblewrap and
 * removed once it ends (the call fails, and says where each led); the
 * controls beside them are links a build makes, left as they are. The
 * same links asked for by an external agent's command, an MCP shell tool
 * or an ACP agent's own tool, none of which Assent's sandbox contains,
 * name the place in their words, and are left to the person at each door.
 */

const HAS_BWRAP = await bubblewrapRequired()

/** A link a command makes, by the name it gives it (in the workspace)
 *  and where it leads; `$HOME`, `$DATA` and `$HOOKS` are this file's
 *  home folder, Assent's data folder and a hooks folder outside the
 *  workspace that the repository's config names. */
const LINKS_TO_KEPT: ReadonlyArray<readonly [name: string, target: string]> = [
  ['notes', '$HOME/.ssh'],
  ['key.txt', '$HOME/.ssh/id_ed25519'],
  ['up', '$HOME'],
  ['data', '$DATA'],
  ['tools', '.git/hooks'],
  ['docs/cfg', '../.git/config'],
  ['ci', '.github/workflows'],
  ['shared-hooks', '$HOOKS'],
  // A name the table keeps too: moved aside, a link would still lead there.
  ['.envrc', '$HOME/.ssh'],
]

const LINKS_LEFT: ReadonlyArray<readonly [name: string, target: string]> = [
  ['latest', 'docs'],
  ['bin', '/usr/bin'],
  ['docs/readme', '../README.md'],
]

const shellLine = (links: ReadonlyArray<readonly [string, string]>) =>
  links.map(([name, target]) => `ln -s "${target}" ${name}`).join(' && ')

describe.runIf(HAS_BWRAP)('a link a contained command makes', () => {
  const scratch = varTmpFolder('assent-made-links-')
  let home = ''
  let data = ''
  let hooks = ''
  let sandbox: CommandSandbox
  let count = 0

  beforeAll(async () => {
    home = path.join(scratch(), 'home')
    data = path.join(scratch(), 'data')
    hooks = path.join(scratch(), 'hooks')
    await mkdir(path.join(home, '.ssh'), { recursive: true })
    await writeFile(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n')
    await mkdir(data)
    await writeFile(path.join(data, 'assent.db'), 'store\n')
    await mkdir(hooks)
    sandbox = new CommandSandbox({
      home,
      env: { ...process.env, HOME: home },
      assentPrivate: [data],
    })
  })

  async function workspaceWith(script: string): Promise<string> {
    count += 1
    const workspace = path.join(scratch(), `ws-${count}`)
    await mkdir(path.join(workspace, 'docs'), { recursive: true })
    await mkdir(path.join(workspace, '.github', 'workflows'), { recursive: true })
    await writeFile(path.join(workspace, 'README.md'), 'hello\n')
    execFileSync('git', ['init', '-q', workspace])
    execFileSync('git', ['-C', workspace, 'config', 'core.hooksPath', hooks])
    await writeFile(
      path.join(workspace, 'make-links.sh'),
      script.replaceAll('$DATA', data).replaceAll('$HOOKS', hooks),
    )
    return workspace
  }

  const run = (workspace: string, extraWritableRoots: string[] = []) =>
    runCommandTool.run(
      { argv: ['sh', 'make-links.sh'] },
      {
        workspace,
        resolvedPaths: [workspace],
        timeoutMs: 60_000,
        command: { sandbox, sandboxMode: 'workspace-write', extraWritableRoots },
      },
    )

  it.each(LINKS_TO_KEPT)('%s -> %s: removed once it ends, and said', async (name, target) => {
    const workspace = await workspaceWith(shellLine([[name, target]]))
    const result = await run(workspace)
    expect(result).toMatchObject({ ok: false, code: 'person_only_made', exitCode: 0 })
    const made = path.join(workspace, name)
    expect(result.output).toContain(`${made}: a link it made to `)
    expect(existsSync(made) || isLink(made)).toBe(false)
    // Nor left under another name that still leads there.
    const left = execFileSync('find', [workspace, '-type', 'l'], { encoding: 'utf8' })
    expect(left).toBe('')
  })

  it('removes one into a folder the turn was widened to, judged with that folder’s name', async () => {
    // `~/.config` widened: `autostart` below it is `.config/autostart`,
    // whose programs the desktop starts; not there yet, the link leads
    // where the person's tools would make it.
    const config = path.join(home, '.config')
    await mkdir(config, { recursive: true })
    const workspace = await workspaceWith('ln -s "$HOME/.config/autostart" docs/startup')
    const result = await run(workspace, [config])
    expect(result).toMatchObject({ ok: false, code: 'person_only_made', exitCode: 0 })
    expect(isLink(path.join(workspace, 'docs', 'startup'))).toBe(false)
  })

  it('leaves the links a build makes, and a link to the hooks the person made', async () => {
    const workspace = await workspaceWith(shellLine(LINKS_LEFT))
    await symlink('.git/hooks', path.join(workspace, 'person-hooks'))
    const result = await run(workspace)
    expect(result).toMatchObject({ ok: true, exitCode: 0 })
    for (const [name, target] of LINKS_LEFT) {
      expect(readlinkSync(path.join(workspace, name))).toBe(target)
    }
    expect(readlinkSync(path.join(workspace, 'person-hooks'))).toBe('.git/hooks')
  })

  it('cannot make a hard link to a kept or hidden file (the link crosses its mounts)', async () => {
    const workspace = await workspaceWith(
      'ln .git/config cfg; ln "$HOME/.ssh/id_ed25519" key; ln "$DATA/assent.db" db; exit 0',
    )
    expect(await run(workspace)).toMatchObject({ ok: true })
    for (const name of ['cfg', 'key', 'db'])
      expect(existsSync(path.join(workspace, name))).toBe(false)
  })
})

function isLink(candidate: string): boolean {
  try {
    return lstatSync(candidate).isSymbolicLink()
  } catch {
    return false
  }
}

/** The same links, as the doors no sandbox of Assent's contains ask to
 *  make them: each names the place it leads to in its words. */
const UNCONTAINED_LINKS: readonly string[] = [
  'ln -s ~/.ssh notes',
  'ln -s ../home/.ssh notes',
  'ln -s .git/hooks tools',
  'ln -s ../.git/config docs/cfg',
  'ln -s .github/workflows ci',
]

const MAC = new IntegrityMac(Buffer.alloc(32, 29))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

describe('the same link asked for where no sandbox of Assent’s contains it', () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>

  beforeEach(async () => {
    place = askerWorldInTempWorkspace('assent-made-links-doors-', MAC, AGENT)
    await mkdir(path.join(place.root, 'home', '.ssh'), { recursive: true })
    await mkdir(path.join(place.workspace, 'docs'))
    execFileSync('git', ['init', '-q', place.workspace])
  })
  afterEach(() => place.dispose())

  it.each(UNCONTAINED_LINKS)('the rule keeps %s for the person', (line) => {
    const { workspace } = place
    const asAgent: ActionTouch = {
      toolName: AGENT_COMMAND_TOOL,
      arguments: { commandLine: line, argv: null, cwd: workspace },
      workspace,
    }
    const asMcpShell = mcpTouch(
      { serverId: 'shell', toolName: 'execute', arguments: { command: line } },
      workspace,
    )
    const asAgentTool: ActionTouch = {
      toolName: AGENT_TOOL_CALL_TOOL,
      arguments: {
        toolKind: 'execute',
        title: 'Run',
        input: { command: line, workdir: workspace },
      },
      workspace,
    }
    expect(personOnlyReason(asAgent)).not.toBeNull()
    expect(personOnlyReason(asMcpShell) ?? judgedPrivateMcpRead(asMcpShell)).not.toBeNull()
    expect(personOnlyReason(asAgentTool) ?? judgedPrivateMcpRead(asAgentTool)).not.toBeNull()
  })

  it.each(UNCONTAINED_LINKS)('the reviewer and the webhook leave %s to the person', (line) =>
    commandLeftToThePersonByEach(place.world, line, place.workspace),
  )
})
