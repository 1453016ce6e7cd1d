import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { sandboxedRun } from './test-support/sandboxed-run.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

// Credentials deeper in the home folder than its top, where tools and app
// containers keep them, and another project's: hidden from a contained
// command (home-credentials.ts), in a real bubblewrap. The top of the home
// folder is command-sandbox.test.ts's.

const HAS_BWRAP = await bubblewrapRequired()
const KEY_TEXT = 'FIXTURE-PRIVATE-KEY-not-a-real-key'
const DEEP_CREDENTIALS = [
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
  'snap/firefox/common/.mozilla/firefox/p.default/logins.json',
  '.var/app/org.mozilla.firefox/.mozilla/firefox/p.default/logins.json',
  'src/other-project/.env',
  'src/other-project/keys/id_ed25519',
]

let ws: string
let sandbox: CommandSandbox
const scratch = varTmpFolder('assent-sandbox-home-')

beforeAll(async () => {
  const base = scratch()
  ws = path.join(base, 'workspace')
  const home = path.join(base, 'home')
  await mkdir(ws, { recursive: true })
  for (const deep of DEEP_CREDENTIALS) {
    await mkdir(path.dirname(path.join(home, deep)), { recursive: true })
    await writeFile(path.join(home, deep), KEY_TEXT)
  }
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
})

const { sh } = sandboxedRun(() => ({ workspace: ws, sandbox }))

describe.runIf(HAS_BWRAP)('a command allowed under workspace-write, in the home folder', () => {
  // The read rule asks for these at any depth; the sandbox hides them as
  // well, not only what sits at the home folder's top.
  it.each(DEEP_CREDENTIALS)('cannot read ~/%s, deeper in the home folder', async (deep) => {
    const result = await sh(`cat ~/${deep}`, 'workspace-write')
    expect(result.output).not.toContain(KEY_TEXT)
    const full = await sh(`cat ~/${deep}`, 'danger-full-access')
    expect(full.output).toContain(KEY_TEXT)
  })
})
