import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { personOnlyPathsInRoots } from '../policy/read-only-walk.ts'
import { runCommandTool } from '../tools/run-command.ts'
import type { ToolResult } from '../tools/tool-types.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'

// A folder the person let a turn write besides the workspace is judged by
// the table as the doors judge it, by where it is: `~/.config` holds
// `.config/git/config` and `.config/autostart`, though below the folder
// their names are `git/config` and `autostart`. Real bubblewrap, real
// files under /var/tmp.

const HAS_BWRAP = await bubblewrapRequired()

/** What the person-only table names below a widened folder, relative to
 *  the home folder: the widened folder, and the paths in it a command
 *  writes. Each `kept` exists before the command runs; each `made` does not. */
const WIDENED: ReadonlyArray<
  readonly [name: string, folder: string, kept: readonly string[], made: readonly string[]]
> = [
  [
    'the person’s settings folder',
    '.config',
    ['git/config', 'nvim/init.lua'],
    ['autostart/agent.desktop', 'systemd/user/agent.service', 'fish/conf.d/agent.fish'],
  ],
  ['a shell’s own folder in it', '.config/fish', ['functions/ls.fish'], ['conf.d/agent.fish']],
]

/** What every row's command also writes, which stays the command's. */
const CONTROL = 'myapp/settings.json'

let base: string
let home: string
let workspace: string
let sandbox: CommandSandbox
const scratch = varTmpFolder('assent-widened-')

beforeAll(async () => {
  base = scratch()
  home = path.join(base, 'home')
  workspace = path.join(base, 'ws')
  await mkdir(workspace, { recursive: true })
  await mkdir(home)
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
})

async function layWidened(folder: string, kept: readonly string[]): Promise<string> {
  const widened = path.join(home, folder)
  for (const file of [...kept, CONTROL]) {
    await mkdir(path.dirname(path.join(widened, file)), { recursive: true })
    await writeFile(path.join(widened, file), 'the person’s\n')
  }
  return widened
}

/** The person allowed `sh build.sh`; the script's words name nothing. */
function runScript(widened: string, lines: readonly string[]): Promise<ToolResult> {
  return writeFile(path.join(workspace, 'build.sh'), lines.join('\n')).then(() =>
    runCommandTool.run(
      { argv: ['sh', 'build.sh'] },
      {
        workspace,
        resolvedPaths: [workspace],
        timeoutMs: 60_000,
        command: { sandbox, sandboxMode: 'workspace-write', extraWritableRoots: [widened] },
      },
    ),
  )
}

describe.runIf(HAS_BWRAP)('a folder the turn was widened to', () => {
  it.each(WIDENED)(
    '%s: what the table names in it stays read-only, what is made of it is moved aside, the rest is written',
    async (_name, folder, kept, made) => {
      const widened = await layWidened(folder, kept)
      const { paths } = personOnlyPathsInRoots([workspace, widened])
      for (const file of kept) {
        const full = path.join(widened, file)
        expect(
          paths.some((p) => full === p || full.startsWith(p + path.sep)),
          `${file} is not kept`,
        ).toBe(true)
      }
      expect(paths.some((p) => path.join(widened, CONTROL).startsWith(p))).toBe(false)

      const result = await runScript(widened, [
        `cd ${widened}`,
        ...kept.map((file) => `echo agent >> ${file}`),
        ...made.map((file) => `mkdir -p ${path.dirname(file)} && echo agent > ${file}`),
        `echo agent > ${CONTROL}`,
      ])
      expect(result.ok, result.output).toBe(false)
      for (const file of kept) {
        expect(await readFile(path.join(widened, file), 'utf8')).toBe('the person’s\n')
      }
      for (const file of made) {
        expect(existsSync(path.join(widened, file)), `${file} is still there`).toBe(false)
      }
      expect(result.output).toContain(`: moved to ${widened}`)
      expect(await readFile(path.join(widened, CONTROL), 'utf8')).toBe('agent\n')
    },
  )
})
