import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { sensitivePath } from '../policy/sensitive-paths.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { sandboxedRun } from './test-support/sandboxed-run.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'

// Where AI agents and editors keep the MCP servers they start, with the
// tokens those servers take (`"env": { "GITHUB_PERSONAL_ACCESS_TOKEN": …
// }`): a read of each asks at every door, and a contained command cannot
// read them either (before, it printed every token to the agent). Real
// bubblewrap, a real home folder under /var/tmp.

const HAS_BWRAP = await bubblewrapRequired()

const TOKEN = 'FIXTURE-MCP-TOKEN-not-a-real-one'

/** Each config, relative to the home folder. */
const CONFIGS: ReadonlyArray<readonly [what: string, file: string]> = [
  ['Claude Desktop’s servers', '.config/Claude/claude_desktop_config.json'],
  ['Claude Code’s', '.claude.json'],
  ['Claude Code’s settings', '.claude/settings.json'],
  ['Codex’s', '.codex/config.toml'],
  ['Cursor’s', '.cursor/mcp.json'],
  ['a gateway’s config', 'gateway/mcp.json'],
  ['another project’s .envrc', 'code/other/.envrc'],
]

/** A settings file beside them that holds no token (control). */
const CONTROL = '.config/myapp/settings.json'
/** The workspace's own MCP config: the project's, readable (control). */
const OWN = '.vscode/mcp.json'

let home: string
let workspace: string
let sandbox: CommandSandbox
const scratch = varTmpFolder('assent-agent-configs-')

beforeAll(async () => {
  const base = scratch()
  home = path.join(base, 'home')
  workspace = path.join(home, 'code', 'ws')
  for (const file of [...CONFIGS.map(([, file]) => file), CONTROL]) {
    await mkdir(path.dirname(path.join(home, file)), { recursive: true })
    await writeFile(path.join(home, file), `{"env": {"TOKEN": "${TOKEN}"}}\n`)
  }
  await mkdir(path.join(workspace, '.vscode'), { recursive: true })
  await writeFile(path.join(workspace, OWN), `{"env": {"TOKEN": "${TOKEN}"}}\n`)
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
})

const { sh } = sandboxedRun(() => ({ workspace, sandbox }))

describe('an agent’s MCP config in the home folder', () => {
  it.each(CONFIGS)('%s: a read of it asks at every door', (_what, file) => {
    expect(sensitivePath(path.join('/home/ada', file))).toMatchObject({ readAsks: true })
  })

  it.runIf(HAS_BWRAP).each(CONFIGS)(
    '%s: a contained command cannot read it',
    async (_what, file) => {
      const result = await sh(`cat ${path.join(home, file)}; echo done`, 'workspace-write')
      expect(result.output).toContain('done')
      expect(result.output).not.toContain(TOKEN)
    },
  )

  it.runIf(HAS_BWRAP)('leaves a settings file beside them readable (control)', async () => {
    expect(sensitivePath(path.join('/home/ada', CONTROL))).toBeNull()
    const result = await sh(`cat ${path.join(home, CONTROL)}`, 'workspace-write')
    expect(result.output).toContain(TOKEN)
  })

  it.runIf(HAS_BWRAP)('leaves the workspace’s own config readable (control)', async () => {
    const result = await sh(`cat ${OWN}`, 'workspace-write')
    expect(result.output).toContain(TOKEN)
  })
})
