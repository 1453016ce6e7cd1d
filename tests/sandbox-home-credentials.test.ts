import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { varTmpFolder } from '../src/runtime/sandbox/test-support/var-tmp-folder.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

// An allowed command runs in bubblewrap with the person's home folder
// read-only and their credential files hidden (secret-folders.ts,
// sandbox-policy.ts): "so an allowed command cannot read a key". These are
// well-known places where common tools keep a plain (or trivially
// recoverable) credential, each a sibling of one the table already hides.

const HAS_BWRAP = await bubblewrapRequired()
const KEY = 'FIXTURE-TOKEN-not-a-real-one'

/** Where a tool keeps its secret, relative to home, and what it holds. */
const PLACES: { place: string; holds: string; sibling: string }[] = [
  {
    // The X display's cookie: with it, any program types and clicks in the
    // person's windows.
    place: '.Xauthority',
    holds: `MIT-MAGIC-COOKIE-1 ${KEY}\n`,
    sibling: '.netrc',
  },
  {
    // The session manager's cookie (ICE), its sibling.
    place: '.ICEauthority',
    holds: `MIT-MAGIC-COOKIE-1 ${KEY}\n`,
    sibling: '.Xauthority',
  },
  {
    // git credential-store's second file (git-credential-store(1):
    // "$XDG_CONFIG_HOME/git/credentials"), read when it exists.
    place: '.config/git/credentials',
    holds: `https://u:${KEY}@example.com\n`,
    sibling: '.git-credentials',
  },
  {
    // Podman, Buildah and Skopeo registry logins (containers-auth.json(5)).
    place: '.config/containers/auth.json',
    holds: `{"auths":{"quay.io":{"auth":"${KEY}"}}}`,
    sibling: '.docker',
  },
  {
    // Maven's master password, which decrypts settings.xml's passwords.
    place: '.m2/settings-security.xml',
    holds: `<settingsSecurity><master>${KEY}</master></settingsSecurity>`,
    sibling: '.m2/settings.xml',
  },
  {
    // Terraform CLI config: credentials "app.terraform.io" { token = … }.
    place: '.terraformrc',
    holds: `credentials "app.terraform.io" { token = "${KEY}" }\n`,
    sibling: 'credentials.tfrc.json',
  },
  {
    // Cargo's registry token under its older name, which cargo still reads.
    place: '.cargo/credentials',
    holds: `[registry]\ntoken = "${KEY}"\n`,
    sibling: 'credentials.toml',
  },
  {
    // Composer's auth.json in COMPOSER_HOME (~/.config/composer on Linux).
    place: '.config/composer/auth.json',
    holds: `{"github-oauth":{"github.com":"${KEY}"}}`,
    sibling: '.npmrc',
  },
  {
    // hub's OAuth token.
    place: '.config/hub',
    holds: `github.com:\n- user: u\n  oauth_token: ${KEY}\n`,
    sibling: '.config/gh',
  },
  {
    // MySQL's login paths (mysql_config_editor), beside .my.cnf.
    place: '.mylogin.cnf',
    holds: KEY,
    sibling: '.my.cnf',
  },
  {
    // VS Code's extensions' store: its sign-ins (`secret://…`), sealed
    // with a fixed word where no keyring answers.
    place: '.config/Code/User/globalStorage/state.vscdb',
    holds: `secret://github.auth ${KEY}`,
    sibling: '.config/google-chrome',
  },
  {
    // Cursor keeps its access token there as plain text.
    place: '.config/Cursor/User/globalStorage/state.vscdb',
    holds: `cursorAuth/accessToken ${KEY}`,
    sibling: '.config/google-chrome',
  },
  {
    // An extension's own folder in it (an API key it saved).
    place: '.vscode-server/data/User/globalStorage/some.extension/token.json',
    holds: `{"apiKey":"${KEY}"}`,
    sibling: '.config/github-copilot',
  },
  {
    // Chrome installed as a Flatpak: its profile in the app's own folder.
    place: '.var/app/com.google.Chrome/config/google-chrome/Default/Login Data',
    holds: KEY,
    sibling: '.config/google-chrome',
  },
  {
    // Chromium installed as a Snap.
    place: 'snap/chromium/common/chromium/Default/Cookies',
    holds: KEY,
    sibling: '.config/chromium',
  },
  {
    // Discord keeps its token as plain text in its Local Storage.
    place: '.config/discord/Local Storage/leveldb/000005.ldb',
    holds: `token ${KEY}`,
    sibling: '.config/google-chrome',
  },
  {
    // CircleCI's command line's token, beside nothing secret.
    place: '.circleci/cli.yml',
    holds: `token: ${KEY}\n`,
    sibling: '.config/gh',
  },
  {
    // Teleport's keys and certificates.
    place: '.tsh/keys/proxy.example.com/me',
    holds: KEY,
    sibling: '.ssh',
  },
  {
    // FileZilla keeps the sites' passwords, base64 only.
    place: '.config/filezilla/sitemanager.xml',
    holds: `<Pass encoding="base64">${KEY}</Pass>`,
    sibling: '.netrc',
  },
]

const scratch = varTmpFolder('assent-exp-modes-home-')
let ws: string
let home: string
let sandbox: CommandSandbox

beforeAll(async () => {
  ws = path.join(scratch(), 'workspace')
  home = path.join(scratch(), 'home')
  await mkdir(ws, { recursive: true })
  await mkdir(home, { recursive: true })
  for (const { place, holds } of PLACES) {
    await mkdir(path.dirname(path.join(home, place)), { recursive: true })
    await writeFile(path.join(home, place), holds)
  }
  // The control: a credential file the table names.
  await writeFile(path.join(home, '.git-credentials'), `https://u:${KEY}@example.com\n`)
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
})

const { sh } = sandboxedRun(() => ({ workspace: ws, sandbox }))

describe.runIf(HAS_BWRAP)(
  'an allowed command under workspace-write, reading the home folder',
  () => {
    it('control: cannot read ~/.git-credentials, which the table names', async () => {
      const result = await sh('cat ~/.git-credentials; echo done', 'workspace-write')
      expect(result.output).toContain('done')
      expect(result.output).not.toContain(KEY)
    })

    it.each(PLACES)('cannot read ~/$place (beside $sibling)', async ({ place }) => {
      // The command the person allowed might be `make` or `npm test`: what it
      // reads cannot be read off its words, which is why the sandbox hides it.
      const result = await sh(`cat ~/'${place}'; echo done`, 'workspace-write')
      expect(result.output).toContain('done')
      expect(result.output).not.toContain(KEY)
    })
  },
)
