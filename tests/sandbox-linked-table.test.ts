import { existsSync } from 'node:fs'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { varTmpFolder } from '../src/runtime/sandbox/test-support/var-tmp-folder.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

// Person-only paths reached through a symbolic link inside the workspace:
// a table file that is itself a link (`.pre-commit-config.yaml ->
// ci/pre-commit.yaml`), bound read-only at its target and compared there
// after the call too. Real bubblewrap, real files under /var/tmp.

const HAS_BWRAP = await bubblewrapRequired()

let base: string
let sandbox: CommandSandbox
let count = 0
const scratch = varTmpFolder('assent-linked-table-')

beforeAll(async () => {
  base = scratch()
  const home = path.join(base, 'home')
  await mkdir(home)
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
})

async function freshWorkspace(): Promise<string> {
  count += 1
  const workspace = path.join(base, `ws-${count}`)
  await mkdir(workspace)
  return workspace
}

/** What a file reads now, or '' when nothing is there. */
const readsNow = async (file: string) => (existsSync(file) ? await readFile(file, 'utf8') : '')

const EVIL_PRE_COMMIT = 'repos:\\n- repo: local\\n  hooks:\\n  - id: x\\n    entry: sh -c evil\\n'

describe.runIf(HAS_BWRAP)('person-only paths behind links in the workspace', () => {
  it('moves aside a file put at a linked table file’s target after its folder was renamed', async () => {
    const workspace = await freshWorkspace()
    await mkdir(path.join(workspace, 'ci'))
    await writeFile(path.join(workspace, 'ci', 'pre-commit.yaml'), 'repos: []\n')
    await symlink('ci/pre-commit.yaml', path.join(workspace, '.pre-commit-config.yaml'))
    const { sh } = sandboxedRun(() => ({ workspace, sandbox }))
    // Written in place, the target is refused: it is bound read-only.
    const direct = await sh('echo x >> ci/pre-commit.yaml', 'workspace-write')
    expect(direct.output).toMatch(/Read-only/)
    const result = await sh(
      `mv ci ci.old && mkdir ci && printf '${EVIL_PRE_COMMIT}' > ci/pre-commit.yaml`,
      'workspace-write',
    )
    expect(result.code, result.output).toBe('person_only_made')
    expect(result.output).toContain(path.join(workspace, 'ci', 'pre-commit.yaml'))
    // pre-commit reads whatever the link leads to when the person commits.
    const now = await readsNow(path.join(workspace, '.pre-commit-config.yaml'))
    expect(now, 'the command’s config is where the link leads').not.toContain('evil')
  })

  it('moves aside a file made where a linked table file leads, when its end was missing', async () => {
    const workspace = await freshWorkspace()
    await mkdir(path.join(workspace, 'ci'))
    await symlink('ci/pre-commit.yaml', path.join(workspace, '.pre-commit-config.yaml'))
    const { sh } = sandboxedRun(() => ({ workspace, sandbox }))
    const result = await sh(`printf '${EVIL_PRE_COMMIT}' > ci/pre-commit.yaml`, 'workspace-write')
    expect(result.code, result.output).toBe('person_only_made')
    const now = await readsNow(path.join(workspace, '.pre-commit-config.yaml'))
    expect(now, 'the command’s config is where the link leads').not.toContain('evil')
  })
})
