import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { varTmpFolder } from '../src/runtime/sandbox/test-support/var-tmp-folder.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

// A hidden file outside the writable roots is an empty file in a
// read-only copy of its folder (hidden-file-folders.ts), not a mount over
// the real folder's entry: a mount there is taken away in the command's
// namespace when something outside replaces the file the usual safe way
// (a new file renamed over the old: git's lock files, an editor's save,
// Assent's own private writes), and a command still running would read the
// new file, secret and all.

const HAS_BWRAP = await bubblewrapRequired()
const OLD = 'FIXTURE-old-token-not-real'
const NEW = 'FIXTURE-refreshed-token-not-real'

const scratch = varTmpFolder('assent-hidden-replaced-')
let ws: string
let home: string
let mcpConfig: string
let sandbox: CommandSandbox

beforeAll(async () => {
  ws = path.join(scratch(), 'workspace')
  home = path.join(scratch(), 'home')
  const config = path.join(scratch(), 'config')
  for (const dir of [ws, home, config]) await mkdir(dir, { recursive: true })
  await writeFile(path.join(home, '.git-credentials'), `https://u:${OLD}@example.com\n`)
  mcpConfig = path.join(config, 'mcp.json')
  await writeFile(mcpConfig, JSON.stringify({ servers: { s: { env: { TOKEN: OLD } } } }))
  sandbox = new CommandSandbox({
    home,
    env: { ...process.env, HOME: home },
    assentPrivate: [path.join(scratch(), 'data'), mcpConfig],
  })
})

const { sh } = sandboxedRun(() => ({ workspace: ws, sandbox }))

/** Runs a command that reads `file` once at its start, says it started,
 *  waits for the test's `go` (a file in the workspace), then reads `file`
 *  again; `replace` runs outside while it waits. */
async function readAcrossReplace(file: string, tag: string, replace: () => Promise<void>) {
  const started = path.join(ws, `${tag}.started`)
  const go = path.join(ws, `${tag}.go`)
  const running = sh(
    `printf 'before:'; cat '${file}'; echo; : > '${started}'; ` +
      `while [ ! -e '${go}' ]; do sleep 0.05; done; printf 'after:'; cat '${file}'; echo`,
    'workspace-write',
  )
  await expect.poll(() => existsSync(started), { timeout: 30_000 }).toBe(true)
  await replace()
  await writeFile(go, '')
  return running
}

describe.runIf(HAS_BWRAP)('a hidden file replaced outside while an allowed command runs', () => {
  it("stays hidden when the person's git stores a credential in ~/.git-credentials", async () => {
    const file = path.join(home, '.git-credentials')
    const result = await readAcrossReplace(file, 'git', async () => {
      // The person's own `git push` elsewhere, credential.helper=store:
      // git writes .git-credentials.lock and renames it over the file.
      execFileSync('git', ['credential-store', '--file', file, 'store'], {
        input: `protocol=https\nhost=example.org\nusername=u\npassword=${NEW}\n\n`,
        env: { ...process.env, HOME: home },
      })
    })
    const [before = '', after = ''] = result.output.split('after:')
    // Hidden at the start (the rig works: bound over, it cannot be read) ...
    expect(before).toContain('before:')
    expect(before).not.toContain(OLD)
    // ... and still hidden after the replace: neither the old token nor
    // the new one.
    expect(after).not.toContain(OLD)
    expect(after).not.toContain(NEW)
  })

  it("stays hidden when Assent's mcp.json is saved through a new file (as an editor does)", async () => {
    const result = await readAcrossReplace(mcpConfig, 'mcp', async () => {
      const saved = `${mcpConfig}.swp-new`
      await writeFile(saved, JSON.stringify({ servers: { s: { env: { TOKEN: NEW } } } }))
      await rename(saved, mcpConfig)
    })
    const [before = '', after = ''] = result.output.split('after:')
    expect(before).toContain('before:')
    expect(before).not.toContain(OLD)
    expect(after).not.toContain(NEW)
  })
})
