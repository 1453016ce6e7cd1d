import { HOOK_TOOL_CONFIG_PATTERNS } from './hook-tool-configs.ts'
import { RUNS_LATER_RULES } from './runs-later-rules.ts'
import { HOME_SECRET_FOLDERS } from './secret-folders.ts'
import { rules, type SensitiveRule } from './sensitive-rule.ts'

/**
 * The paths a change to which needs a person every time: what hands
 * someone a credential, what the shell runs at start-up, everything git
 * keeps or runs, and files that make code run later without anyone being
 * asked. No grant, automatic reviewer or approver webhook answers for a
 * change to one of them (person-only.ts applies this at each of those
 * doors), and the command sandbox keeps those inside the workspace
 * read-only.
 *
 * The table is data so docs/security-model.md can print it
 * (sensitive-paths-doc.test.ts holds the two equal); sensitive-paths.ts
 * matches a path against it, by segment and lower-cased.
 */

export type { SensitiveClass, SensitiveRule } from './sensitive-rule.ts'

const CREDENTIAL_FOLDER_WHY = 'it is in a folder that holds credentials'
const CREDENTIAL_WHY = 'it holds credentials'
const SHELL_WHY = 'the shell runs it at start-up'
const GIT_WHY = 'git keeps what it runs there (hooks, config, filters)'
const VCS_WHY = 'the version control system keeps what it runs there (hooks, config)'

export const SENSITIVE_RULES: readonly SensitiveRule[] = Object.freeze([
  ...rules('credentials', 'folder', HOME_SECRET_FOLDERS, true, CREDENTIAL_FOLDER_WHY),
  ...rules(
    'credentials',
    'name',
    [
      '.netrc',
      '.npmrc',
      '.yarnrc',
      '.yarnrc.yml',
      '.pypirc',
      '.pgpass',
      '.my.cnf',
      '.env',
      '.gitconfig',
      '.git-credentials',
      'authorized_keys',
      'credentials.toml',
      'credentials.tfrc.json',
      // Cloud command lines' keys kept at the home folder's top.
      '.s3cfg',
      '.boto',
      '.databrickscfg',
      '.dockercfg',
      // Cloudflare's wrangler reads a worker's secrets from it.
      '.dev.vars',
      // The display's cookies: with one, any program may connect to the
      // person's X session and type and click in any window, Assent's
      // protected window included.
      '.Xauthority',
      '.ICEauthority',
    ],
    true,
    CREDENTIAL_WHY,
  ),
  ...rules(
    'credentials',
    'pattern',
    // `.env.production`, `.env-production`, `.env_local`.
    ['^\\.env[._-].+', '^id_(?:rsa|dsa|ecdsa|ed25519)(?:[._-].*)?$'],
    true,
    CREDENTIAL_WHY,
  ),
  ...rules(
    'shell-startup',
    'name',
    [
      '.bashrc',
      '.bash_profile',
      '.bash_login',
      '.bash_logout',
      '.profile',
      '.zshrc',
      '.zprofile',
      '.zshenv',
      '.zlogin',
      '.zlogout',
      '.kshrc',
      '.cshrc',
      '.tcshrc',
      '.xprofile',
      '.xsessionrc',
      'config.fish',
      // Sourced by Debian's and Ubuntu's .bashrc; run by startx and the
      // display manager at the session's start.
      '.bash_aliases',
      '.xinitrc',
      '.xsession',
    ],
    true,
    SHELL_WHY,
  ),
  // Folders whose every file a shell (or the session) reads at start-up:
  // fish's conf.d and its functions (a `ls.fish` there is `ls`), the
  // snippets a .bashrc sources, the frameworks a .zshrc or .bashrc
  // sources whole (oh-my-zsh, prezto, bash-it: their plugins and themes
  // are shell code), the session's environment (LD_PRELOAD there reaches
  // every program), nushell's and PowerShell's profiles.
  ...rules(
    'shell-startup',
    'folder',
    [
      '.config/fish/conf.d',
      '.config/fish/functions',
      '.bashrc.d',
      '.oh-my-zsh',
      '.zprezto',
      '.bash_it',
      '.config/environment.d',
      '.config/nushell',
      '.config/powershell',
      // PowerShell's profiles on Windows.
      'documents/powershell',
      'documents/windowspowershell',
    ],
    true,
    SHELL_WHY,
  ),
  // All of .git at any depth: hooks, config (core.fsmonitor, core.pager,
  // aliases), and the same again under modules/<name>/ for each submodule
  // and worktrees/<name>/ for each worktree; and a `.git` file (a
  // worktree's or submodule's pointer to its git folder).
  ...rules('git', 'folder', ['.git'], false, GIT_WHY),
  // The person's own git settings where git also looks for them
  // (`$XDG_CONFIG_HOME/git/config`, `attributes`, `ignore`).
  ...rules('git', 'folder', ['.config/git'], false, GIT_WHY),
  ...rules('git', 'name', ['.gitmodules', '.gitattributes'], false, GIT_WHY),
  // Mercurial, Jujutsu and Sapling keep the same in their own folders:
  // `[hooks]` in `.hg/hgrc` run at the next `hg` command, and a jj or sl
  // config names the programs they run (aliases, a pager, fix tools).
  ...rules('git', 'folder', ['.hg', '.jj', '.sl', '.config/jj', '.config/sapling'], false, VCS_WHY),
  ...rules('git', 'name', ['.hgrc', '.sapling.conf'], true, VCS_WHY),
  // Where hook managers keep the hooks git runs through them: overcommit
  // loads its own hooks from `.git-hooks`, lefthook its local scripts
  // from `.lefthook-local`; husky sources `~/.config/husky/init.sh`
  // before every hook of every repository.
  ...rules(
    'git',
    'folder',
    ['.husky', '.githooks', '.lefthook', '.lefthook-local', '.git-hooks', '.config/husky'],
    false,
    GIT_WHY,
  ),
  ...rules('git', 'name', ['.pre-commit-config.yaml', '.overcommit.yml'], false, GIT_WHY),
  // lefthook reads its config in any of its formats, at the top or in
  // `.config`, and merges a `-local` one over it, commonly kept out of
  // git: each runs what it names at the person's next commit; so do the
  // configs of hook-tool-configs.ts (lint-staged's, husky's, ...).
  ...rules(
    'git',
    'pattern',
    ['^\\.?lefthook(?:-local)?\\.(?:ya?ml|toml|jsonc?)$', ...HOOK_TOOL_CONFIG_PATTERNS],
    false,
    GIT_WHY,
  ),
  ...RUNS_LATER_RULES,
])
