import { existsSync } from 'node:fs'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { sandboxScratch } from '../src/runtime/sandbox/test-support/sandbox-scratch.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

// Person-only paths reached through a symbolic link inside the workspace:
// under a linked folder (`.vscode -> editor/vscode`), found by the walk as
// the person's editor reads them, and a table file that is itself a link
// (`.pre-commit-config.yaml -> ci/pre-commit.yaml`), bound read-only at
// its target and compared there after the call too. Real bubblewrap, real
// files under /var/tmp.

const HAS_BWRAP = await bubblewrapRequired()

const scratch = sandboxScratch('assent-linked-table-')
const { sandbox } = scratch

async function freshWorkspace(): Promise<string> {
  return (await scratch.freshWorkspace()).workspace
}

/** What a file reads now, or '' when nothing is there. */
const readsNow = async (file: string) => (existsSync(file) ? await readFile(file, 'utf8') : '')

const EVIL_PRE_COMMIT = 'repos:\\n- repo: local\\n  hooks:\\n  - id: x\\n    entry: sh -c evil\\n'

describe.runIf(HAS_BWRAP)('person-only paths behind links in the workspace', () => {
  it('keeps editor tasks under a linked table folder (.vscode -> editor/vscode) read-only', async () => {
    const workspace = await freshWorkspace()
    await mkdir(path.join(workspace, 'editor', 'vscode'), { recursive: true })
    await writeFile(path.join(workspace, 'editor', 'vscode', 'tasks.json'), '{"tasks":[]}\n')
    await symlink('editor/vscode', path.join(workspace, '.vscode'))
    const { sh } = sandboxedRun(() => ({ workspace, sandbox: sandbox() }))
    const evil = '{"tasks":[{"command":"evil","runOptions":{"runOn":"folderOpen"}}]}'
    const result = await sh(`printf '%s' '${evil}' > editor/vscode/tasks.json`, 'workspace-write')
    expect(result.ok).toBe(false)
    expect(result.output).toMatch(/Read-only/)
    // The person's editor reads the tasks through the link when the folder opens.
    const now = await readsNow(path.join(workspace, '.vscode', 'tasks.json'))
    expect(now, 'the command’s tasks are where the editor reads them').not.toContain('evil')
  })

  it('moves aside a CI workflow a command makes under a linked .github', async () => {
    const workspace = await freshWorkspace()
    await mkdir(path.join(workspace, 'ci', 'github'), { recursive: true })
    await symlink('ci/github', path.join(workspace, '.github'))
    const { sh } = sandboxedRun(() => ({ workspace, sandbox: sandbox() }))
    const result = await sh(
      "mkdir -p ci/github/workflows && echo 'run: evil' > ci/github/workflows/ci.yml",
      'workspace-write',
    )
    expect(result.code, result.output).toBe('person_only_made')
    expect(result.output).toContain(path.join(workspace, 'ci', 'github', 'workflows'))
    const now = await readsNow(path.join(workspace, '.github', 'workflows', 'ci.yml'))
    expect(now, 'the command’s workflow is where CI reads it').not.toContain('evil')
  })

  it('moves aside a file put at a linked table file’s target after its folder was renamed', async () => {
    const workspace = await freshWorkspace()
    await mkdir(path.join(workspace, 'ci'))
    await writeFile(path.join(workspace, 'ci', 'pre-commit.yaml'), 'repos: []\n')
    await symlink('ci/pre-commit.yaml', path.join(workspace, '.pre-commit-config.yaml'))
    const { sh } = sandboxedRun(() => ({ workspace, sandbox: sandbox() }))
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
    const { sh } = sandboxedRun(() => ({ workspace, sandbox: sandbox() }))
    const result = await sh(`printf '${EVIL_PRE_COMMIT}' > ci/pre-commit.yaml`, 'workspace-write')
    expect(result.code, result.output).toBe('person_only_made')
    const now = await readsNow(path.join(workspace, '.pre-commit-config.yaml'))
    expect(now, 'the command’s config is where the link leads').not.toContain('evil')
  })
})
