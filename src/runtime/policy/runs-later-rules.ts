import { rules, type SensitiveRule } from './sensitive-rule.ts'

// The files that make code run later without anyone being asked: CI
// workflows, editors' tasks and settings, what runs at login or on entering
// a folder, where the programs the person runs are found first, and what AI
// agents and editors start; the last part of the table of what always
// needs a person (sensitive-path-rules.ts), in its order.

const RUNS_LATER_WHY = 'it makes code run later without anyone being asked'
const FOUND_FIRST_WHY =
  'what it holds runs in place of the programs the person calls, or as their shell starts, without anyone being asked'
const AGENT_CONFIG_WHY =
  'an AI agent or editor starts what it names (MCP servers, hooks) and allows what it lists without anyone being asked'

export const RUNS_LATER_RULES: readonly SensitiveRule[] = [
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
]
