import { describe, expect, it } from 'vitest'
import { sensitivePath, sensitivePathReason } from './sensitive-paths.ts'

describe('sensitivePathReason', () => {
  it.each([
    '/home/u/.ssh/authorized_keys',
    '/home/u/.ssh/config',
    '/home/u/.SSH/config',
    '/home/u/.aws/credentials',
    '/home/u/.gnupg/pubring.kbx',
    '/home/u/.kube/config',
    '/home/u/.docker/config.json',
    '/home/u/.netrc',
    // Written in the case their tools use, matched in any.
    '/home/u/.Xauthority',
    '/home/u/.xauthority',
    '/home/u/.ICEauthority',
    '/home/u/.npmrc',
    'project/.npmrc',
    'project/.env',
    'project/.env.local',
    '/home/u/.bashrc',
    '/home/u/.zshrc',
    '/home/u/.profile',
    '/home/u/.bash_profile',
    '/home/u/.config/fish/config.fish',
    '/home/u/.config/fish/conf.d/path.fish',
    '/home/u/.config/fish/functions/ls.fish',
    '/home/u/.bash_aliases',
    '/home/u/.bashrc.d/10-tools.sh',
    '/home/u/.config/environment.d/50-preload.conf',
    '/home/u/.vimrc',
    '/home/u/.config/nvim/init.lua',
    '/home/u/.emacs.d/init.el',
    '/home/u/.tmux.conf',
    '/home/u/.gitconfig',
    '/home/u/.git-credentials',
    'keys/id_rsa',
    'keys/id_ed25519.pub',
    'repo/.git/hooks/pre-commit',
    'repo/.git/config',
    'C:\\Users\\u\\.ssh\\id_rsa',
    // All of .git, at any depth: a submodule's hooks and config run like
    // the repository's own; a worktree's too; and a .git pointer file.
    'repo/.git/HEAD',
    'repo/.git/modules/x/hooks/pre-commit',
    'repo/.git/modules/sub/config',
    'repo/.git/worktrees/w/config',
    'repo/sub/.git',
    'repo/.gitmodules',
    'repo/.husky/pre-commit',
    'repo/.githooks/pre-push',
    'repo/.pre-commit-config.yaml',
    // lefthook's configs in each of its formats and places, its local one
    // and its local scripts; overcommit's own hooks.
    'repo/lefthook-local.yml',
    'repo/.lefthook-local.yaml',
    'repo/lefthook.toml',
    'repo/.lefthook.jsonc',
    'repo/.config/lefthook-local.json',
    'repo/.lefthook-local/pre-commit/x.sh',
    'repo/.git-hooks/pre_commit/check.rb',
    // What a hook runs through husky's and simple-git-hooks' own configs,
    // and what lint-staged, nano-staged and commitlint run or load when a
    // hook calls them, wherever the config stands.
    '/home/u/.config/husky/init.sh',
    'repo/.huskyrc',
    'repo/.huskyrc.json',
    'repo/husky.config.js',
    'repo/.simple-git-hooks.cjs',
    'repo/simple-git-hooks.json',
    'repo/.lintstagedrc',
    'repo/packages/web/.lintstagedrc.yaml',
    'repo/lint-staged.config.mjs',
    'repo/.nano-staged.json',
    'repo/.nanostagedrc',
    'repo/.commitlintrc.json',
    'repo/commitlint.config.ts',
    // Code that runs later without anyone asked.
    'repo/.envrc',
    'repo/.vscode/tasks.json',
    'repo/.vscode/launch.json',
    'repo/.github/workflows/ci.yml',
    'repo/.gitlab-ci.yml',
    'repo/Jenkinsfile',
    'repo/team.code-workspace',
    'repo/mise.toml',
    // mise's config for the environment MISE_ENV names.
    'repo/mise.dev.toml',
    'repo/.mise.ci.local.toml',
    // What AI agents and editors start and allow without asking.
    'repo/.vscode/mcp.json',
    'repo/.claude/settings.json',
    'repo/.claude/settings.local.json',
    'repo/.mcp.json',
    '/home/u/.codex/config.toml',
    '/home/u/.cursor/mcp.json',
    '/home/u/.claude.json',
    '/home/u/.config/Claude/claude_desktop_config.json',
    '/home/u/.config/zed/settings.json',
    '/home/u/.config/autostart/x.desktop',
    // Agents' sign-ins.
    '/home/u/.codex/auth.json',
    '/home/u/.claude/.credentials.json',
    '/home/u/.config/github-copilot/apps.json',
    // The shared list of credential folders.
    '/home/u/.config/gh/hosts.yml',
    '/home/u/.local/share/keyrings/login.keyring',
    // Found before what is installed: the person's next `git`, the user
    // site's `.pth` files Python runs at each start, version managers'
    // shims.
    '/home/u/.local/bin/git',
    '/home/u/.local/lib/python3.12/site-packages/zz.pth',
    '/home/u/.cargo/bin/cargo',
    '/home/u/.nvm/nvm.sh',
    '/home/u/.pyenv/shims/python',
    '/home/u/.oh-my-zsh/plugins/git/git.plugin.zsh',
    // What editors, interpreters and tools load when they start.
    '/home/u/.vscode/extensions/me.tool-1.0.0/extension.js',
    '/home/u/.vscode-server/data/Machine/settings.json',
    '/home/u/.config/Code/User/settings.json',
    '/Users/u/Library/Application Support/Code/User/tasks.json',
    'C:\\Users\\u\\AppData\\Roaming\\Code\\User\\settings.json',
    '/home/u/.vim/plugin/x.vim',
    '/home/u/.local/share/nvim/lazy/x/plugin/x.lua',
    '/home/u/.config/emacs/init.el',
    '/home/u/.tmux/plugins/tpm/tpm',
    '/home/u/.ipython/profile_default/startup/00.py',
    '/home/u/.jupyter/jupyter_server_config.py',
    'repo/.cargo/config.toml',
    'repo/.Rprofile',
    '/home/u/.psqlrc',
    '/home/u/.sqliterc',
    '/home/u/.gdbinit',
    '/home/u/.lessfilter',
    '/usr/lib/python3/dist-packages/sitecustomize.py',
    // More tools' sign-ins, browsers' sessions, wallets' keys.
    '/home/u/.config/rclone/rclone.conf',
    '/home/u/.config/glab-cli/config.yml',
    '/home/u/.m2/settings.xml',
    '/home/u/.s3cfg',
    '/home/u/.config/solana/id.json',
    '/home/u/.mozilla/firefox/x.default/logins.json',
    '/home/u/.config/google-chrome/Default/Cookies',
    '/home/u/.config/BraveSoftware/Brave-Browser/Default/Cookies',
    '/Users/u/Library/Keychains/login.keychain-db',
    '/home/u/.ethereum/keystore/UTC--x',
    // Other version control systems' folders and configs.
    'repo/.hg/hgrc',
    'repo/.hg/store/data/x.i',
    'repo/.jj/repo/config.toml',
    '/home/u/.hgrc',
    '/home/u/.config/jj/config.toml',
    // The same on macOS and Windows: what runs at the next login, and
    // PowerShell's profile.
    '/Users/u/Library/LaunchAgents/com.x.agent.plist',
    'C:\\Users\\u\\AppData\\Roaming\\Microsoft\\Windows\\Start Menu\\Programs\\Startup\\x.lnk',
    'C:\\Users\\u\\Documents\\PowerShell\\Microsoft.PowerShell_profile.ps1',
  ])('recognises %s', (p) => {
    expect(sensitivePathReason(p)).not.toBeNull()
  })

  it.each([
    'notes/ssh-tips.md',
    'src/env.ts',
    'docs/.environment.md',
    'src/profile.ts',
    'repo/config',
    'repo/.github/ISSUE_TEMPLATE/bug.md',
    'repo/.vscode/extensions.json',
    'repo/.claude/worktrees/task/src/app.ts',
    'repo/.claude/agents/reviewer.md',
    '/home/u/.config/fish/fish_variables',
    'src/aliases.ts',
    '/home/u/.codex/sessions/2026/12/05/rollout.jsonl',
    'repo/.gitignore',
    'src/git.ts',
    'docs/git/hooks.md',
    'keys/id_rsa_notes_are_here.md.bak/readme',
    'bashrc-examples/readme.md',
    // A project's own code and data under names near the table's: a
    // model's weights, a virtual environment's packages (the project's
    // code, run when the person runs it), a `bin` or `code/user` folder.
    'models/resnet50.pth',
    'repo/.venv/lib/python3.12/site-packages/pkg/__init__.py',
    'repo/bin/build.sh',
    'repo/src/code/user/profile.ts',
    'repo/.cargo-cache/readme',
    'repo/local/bin/tool',
    'repo/.m2/repository/org/x/x.jar',
    'src/mozilla.ts',
    // A package's manifest and other configs: their hook keys are
    // package-hooks.ts's, not the table's.
    'repo/package.json',
    'repo/lint-staged.md',
    'repo/src/husky.ts',
    'repo/.prettierrc.json',
    '',
    '/',
  ])('leaves %j alone', (p) => {
    expect(sensitivePathReason(p)).toBeNull()
  })

  // What a file system opens under another spelling (git refuses each of
  // these on every platform): Windows drops trailing dots and spaces and
  // reads `:` as a stream, NTFS gives short names, HFS+ ignores joiners.
  it.each([
    ['repo/.git./hooks/pre-commit', 'git'],
    ['repo/.git . ./config', 'git'],
    ['repo/.GIT::$INDEX_ALLOCATION/hooks/pre-commit', 'git'],
    ['repo\\.git:stream\\config', 'git'],
    ['repo/GIT~1/hooks/pre-commit', 'git'],
    ['repo/gi7eba~1/config', 'git'],
    ['repo/.g\u200cit/config', 'git'],
    ['repo/.git\ufeff/hooks/x', 'git'],
    ['repo/GITHUB~1/WORKFL~1/ci.yml', 'runs-later'],
    ['repo/GITMOD~1', 'git'],
    ['/home/u/SSH~1/authorized_keys', 'credentials'],
    ['/home/u/.bashrc.', 'shell-startup'],
    ['/home/u/BASHRC~1', 'shell-startup'],
    ['repo/.envrc::$DATA', 'runs-later'],
  ])('reads %j as the file system opens it (%s)', (p, kind) => {
    expect(sensitivePath(p)?.class).toBe(kind)
  })

  it.each(['repo/..', 'repo/../x.txt', 'src/docs~/readme', 'src/git~x/readme', 'notes~1/todo'])(
    'leaves %j alone: no spelling of a table entry',
    (p) => {
      expect(sensitivePathReason(p)).toBeNull()
    },
  )

  it('asks for a read only of what would show a secret', () => {
    expect(sensitivePath('/home/u/.ssh/id_ed25519')?.readAsks).toBe(true)
    expect(sensitivePath('repo/.bashrc')?.readAsks).toBe(true)
    // A remote's URL in a git config can carry a token.
    expect(sensitivePath('repo/.git/config')?.readAsks).toBe(true)
    expect(sensitivePath('repo/.git/modules/sub/config')?.readAsks).toBe(true)
    expect(
      sensitivePath('/home/u/.config/BraveSoftware/Brave-Browser/Default/Cookies')?.readAsks,
    ).toBe(true)
    expect(sensitivePath('/Users/u/Library/Keychains/login.keychain-db')?.readAsks).toBe(true)
    expect(sensitivePath('/home/u/.s3cfg')?.readAsks).toBe(true)
    expect(sensitivePath('repo/.hg/hgrc')?.readAsks).toBe(true)
    expect(sensitivePath('repo/.jj/repo/config.toml')?.readAsks).toBe(true)
    expect(sensitivePath('/home/u/.hgrc')?.readAsks).toBe(true)
    expect(sensitivePath('repo/.hg/store/00changelog.i')?.readAsks).toBe(false)
    expect(sensitivePath('repo/.git/HEAD')?.readAsks).toBe(false)
    // What direnv exports is commonly a secret: reading it asks too.
    expect(sensitivePath('repo/.envrc')?.readAsks).toBe(true)
    expect(sensitivePath('repo/.github/workflows/ci.yml')?.readAsks).toBe(false)
  })

  it('names the class of each match', () => {
    expect(sensitivePath('repo/.git/hooks/x')?.class).toBe('git')
    expect(sensitivePath('repo/.envrc')?.class).toBe('runs-later')
    expect(sensitivePath('/h/.zshrc')?.class).toBe('shell-startup')
    expect(sensitivePath('/h/.aws/credentials')?.class).toBe('credentials')
  })
})
