import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { sensitivePath } from '../policy/sensitive-paths.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { sandboxedRun } from './test-support/sandboxed-run.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'

// Where command-line tools keep a sign-in or a private key in the home
// folder: hidden from a contained command, and a read of it asks at every
// door (the credential rows of the sensitive-path table). Real bubblewrap,
// a real home folder under /var/tmp.

const HAS_BWRAP = await bubblewrapRequired()

const KEY = 'FIXTURE-SIGN-IN-not-a-real-one'

/** Each tool's file, relative to the home folder. */
const SIGN_INS: ReadonlyArray<readonly [tool: string, file: string]> = [
  ['sops’s age private keys', '.config/sops/age/keys.txt'],
  ['Kaggle’s API key', '.kaggle/kaggle.json'],
  ['ngrok’s authtoken', '.config/ngrok/ngrok.yml'],
  ['ngrok 2’s authtoken', '.ngrok2/ngrok.yml'],
  ['Supabase’s access token', '.supabase/access-token'],
  ['Railway’s token', '.railway/config.json'],
  ['Hetzner Cloud’s token', '.config/hcloud/cli.toml'],
  ['Gitea’s tea token', '.config/tea/config.yml'],
]

/** A settings file beside them that holds no sign-in (control). */
const CONTROL = '.config/myapp/settings.json'

let home: string
let workspace: string
let sandbox: CommandSandbox
const scratch = varTmpFolder('assent-sign-ins-')

beforeAll(async () => {
  const base = scratch()
  home = path.join(base, 'home')
  workspace = path.join(base, 'ws')
  await mkdir(workspace, { recursive: true })
  for (const file of [...SIGN_INS.map(([, file]) => file), CONTROL]) {
    await mkdir(path.dirname(path.join(home, file)), { recursive: true })
    await writeFile(path.join(home, file), `token: ${KEY}\n`)
  }
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
})

const { sh } = sandboxedRun(() => ({ workspace, sandbox }))

describe('a tool’s sign-in in the home folder', () => {
  it.each(SIGN_INS)('%s: a read of it asks at every door', (_tool, file) => {
    expect(sensitivePath(path.join('/home/ada', file))).toMatchObject({
      class: 'credentials',
      readAsks: true,
    })
  })

  it.runIf(HAS_BWRAP).each(SIGN_INS)(
    '%s: a contained command cannot read it',
    async (_tool, file) => {
      const result = await sh(`cat ${path.join(home, file)}; echo done`, 'workspace-write')
      expect(result.output).toContain('done')
      expect(result.output).not.toContain(KEY)
    },
  )

  it.runIf(HAS_BWRAP)('leaves a settings file beside them readable (control)', async () => {
    expect(sensitivePath(path.join('/home/ada', CONTROL))).toBeNull()
    const result = await sh(`cat ${path.join(home, CONTROL)}`, 'workspace-write')
    expect(result.output).toContain(KEY)
  })
})
