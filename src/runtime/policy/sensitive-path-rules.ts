import { HOOK_TOOL_CONFIG_PATTERNS } from './hook-tool-configs.ts'
import { HOME_SECRET_FOLDERS } from './secret-folders.ts'

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

export type SensitiveClass = 'credentials' | 'shell-startup' | 'git' | 'runs-later'

export interface SensitiveRule {
  class: SensitiveClass
  /**
   * - `folder`: the path is this folder or anything beneath it, wherever it
   *   stands (`value` may span segments: `.github/workflows`);
   * - `name`: the base name is exactly this;
   * - `pattern`: the base name matches this regular expression.
   */
  match: 'folder' | 'name' | 'pattern'
  value: string
  /** Whether reading it asks too: it holds a secret, so a read would put
   *  one in front of the model. A read of the others shows nothing secret. */
  readAsks: boolean
  /** Why, in English, finishing the sentence "<path>: …". */
  why: string
}

const CREDENTIAL_FOLDER_WHY = 'it is in a folder that holds credentials'
const CREDENTIAL_WHY = 'it holds credentials'
const SHELL_WHY = 'the shell runs it at start-up'
const GIT_WHY = 'git keeps what it runs there (hooks, config, filters)'
const VCS_WHY = 'the version control system keeps what it runs there (hooks, config)'
const RUNS_LATER_WHY = 'it makes code run later without anyone being asked'
const FOUND_FIRST_WHY =
  'what it holds runs in place of the programs the person calls, or as their shell starts, without anyone being asked'
const AGENT_CONFIG_WHY =
  'an AI agent or editor starts what it names (MCP servers, hooks) and allows what it lists without anyone being asked'

function rules(
  klass: SensitiveClass,
  match: SensitiveRule['match'],
  values: readonly string[],
  readAsks: boolean,
  why: string,
): SensitiveRule[] {
  return values.map((value) => ({ class: klass, match, value, readAsks, why }))
}

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
  ...rules(
    'runs-later',
    'folder',
    [
      // CI runs these on the next push, with the repository's secrets.
      '.github/workflows',
      '.github/actions',
      '.circleci',
      '.buildkite',
      // Editors run these when the folder opens, or when asked to build.
      '.vscode/tasks.json',
      '.vscode/launch.json',
      '.vscode/settings.json',
      '.idea/runconfigurations',
      '.idea/workspace.xml',
      '.devcontainer',
      // Gitea's, Forgejo's and Woodpecker's CI, as GitHub's.
      '.gitea/workflows',
      '.forgejo/workflows',
      '.woodpecker',
      // mise's other config places, read as `mise.toml` is.
      '.config/mise',
      '.mise',
      'mise/config.toml',
      '.config/mise.toml',
      // The desktop runs these at the next login (on macOS, launchd's
      // agents; on Windows, the Startup folder).
      '.config/autostart',
      '.config/systemd',
      'library/launchagents',
      'start menu/programs/startup',
      // Editors and the terminal multiplexer run these when they start.
      '.config/nvim',
      '.emacs.d',
      '.config/tmux',
    ],
    false,
    RUNS_LATER_WHY,
  ),
  ...rules(
    'runs-later',
    'name',
    [
      '.gitlab-ci.yml',
      '.travis.yml',
      'azure-pipelines.yml',
      'bitbucket-pipelines.yml',
      '.drone.yml',
      'jenkinsfile',
      // mise runs its hooks and tasks, and sets what it names, on entering
      // the folder, as direnv does.
      'mise.toml',
      '.mise.toml',
      'mise.local.toml',
      '.mise.local.toml',
      '.gitpod.yml',
      // A dev container's `initializeCommand` runs on the host.
      '.devcontainer.json',
      '.woodpecker.yml',
      '.woodpecker.yaml',
      '.vimrc',
      '.gvimrc',
      '.exrc',
      '.nvim.lua',
      '.nvimrc',
      '.emacs',
      '.tmux.conf',
    ],
    false,
    RUNS_LATER_WHY,
  ),
  // direnv runs it in the person's shell on entering the folder, and what
  // it exports is commonly a secret: a read asks too.
  ...rules('runs-later', 'name', ['.envrc'], true, RUNS_LATER_WHY),
  // Where the programs the person runs are found before the installed
  // ones: Debian's and Ubuntu's .profile put ~/.local/bin first on PATH,
  // rustup ~/.cargo/bin, and so on, so a `git` there is the person's next
  // `git`. Python puts the user site (~/.local/lib/pythonX.Y/site-packages)
  // ahead of the system's packages and runs every `.pth` file in it at
  // each start. Version managers a .bashrc sources at start-up and whose
  // shims come first on PATH. (A workspace's own virtual environment is
  // the project's code, run when the person runs the project: not here.)
  ...rules(
    'runs-later',
    'folder',
    [
      '.local/bin',
      '.local/lib',
      '.cargo/bin',
      '.deno/bin',
      '.bun/bin',
      '.volta',
      '.nvm',
      '.pyenv',
      '.rbenv',
      '.sdkman',
      '.asdf',
    ],
    false,
    FOUND_FIRST_WHY,
  ),
  // What editors, interpreters and tools load as code when they start,
  // wherever they are started: editors' extensions and plugins and their
  // user settings (which name programs to run: a terminal's shell, a
  // formatter), an interactive Python's start-up scripts, and the rc files
  // of debuggers, database shells and pagers that run shell commands
  // (`\!` in psql, `.shell` in sqlite, `shell` in gdb); Cargo's config
  // names a `rustc-wrapper` run at each build.
  ...rules(
    'runs-later',
    'folder',
    [
      '.vscode/extensions',
      '.vscode-server',
      '.cursor/extensions',
      '.cursor-server',
      '.windsurf/extensions',
      '.config/code',
      '.config/code - insiders',
      '.config/cursor',
      '.config/vscodium',
      '.config/windsurf',
      'application support/code/user',
      'application support/cursor/user',
      'appdata/roaming/code/user',
      'appdata/roaming/cursor/user',
      '.vim',
      '.local/share/nvim',
      '.config/emacs',
      '.doom.d',
      '.config/doom',
      '.tmux',
      '.ipython',
      '.jupyter',
      '.cargo/config.toml',
      '.cargo/config',
    ],
    false,
    RUNS_LATER_WHY,
  ),
  ...rules(
    'runs-later',
    'name',
    [
      '.spacemacs',
      'sitecustomize.py',
      'usercustomize.py',
      '.rprofile',
      '.irbrc',
      '.pryrc',
      '.psqlrc',
      '.sqliterc',
      '.gdbinit',
      '.lldbinit',
      '.lessfilter',
    ],
    false,
    RUNS_LATER_WHY,
  ),
  // Where AI agents and editors read the MCP servers they start, the hooks
  // they run and the tools they let run unasked: an agent that writes one
  // reaches past every later question, its own or another agent's. They
  // often hold servers' tokens too, so a read asks.
  ...rules(
    'runs-later',
    'folder',
    [
      '.vscode/mcp.json',
      '.cursor/mcp.json',
      '.cursor/hooks.json',
      '.claude/settings.json',
      '.claude/settings.local.json',
      '.codex/config.toml',
      '.gemini/settings.json',
      '.zed/settings.json',
      '.zed/tasks.json',
      '.config/zed',
      '.continue',
      '.codeium/windsurf',
    ],
    true,
    AGENT_CONFIG_WHY,
  ),
  ...rules(
    'runs-later',
    'name',
    // `mcp.json`: what assent-gateway serves is named so in docs/mcp.md; a
    // gateway reloads it, and starts what it names, as it changes.
    ['.mcp.json', 'mcp.json', 'claude_desktop_config.json', '.claude.json', '.aider.conf.yml'],
    true,
    AGENT_CONFIG_WHY,
  ),
  // An agent's own rules and hooks: Codex runs a command its rules allow
  // unasked and outside its sandbox, and runs its hooks' commands at its
  // events; Claude runs the scripts its settings' hooks name (kept, by
  // convention, in .claude/hooks). Nothing secret in them: a read passes.
  ...rules(
    'runs-later',
    'folder',
    ['.codex/rules', '.codex/hooks.json', '.codex/hooks', '.claude/hooks'],
    false,
    AGENT_CONFIG_WHY,
  ),
  // mise reads `mise.<env>.toml` (and its `.local`) for the environment
  // `MISE_ENV` names, as it reads `mise.toml`.
  ...rules(
    'runs-later',
    'pattern',
    ['\\.code-workspace$', '^\\.?mise\\.[\\w.-]+\\.toml$'],
    false,
    RUNS_LATER_WHY,
  ),
])
