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
 * Matching is on path segments and the base name, lower-cased, so
 * `/home/a/.SSH/config` matches on a case-insensitive file system and
 * `notes/ssh-tips.md` does not. Both separators split segments, so the
 * answer is the same for a path written on either platform. A segment is
 * also read as the file systems Assent runs on read it (`segmentAsStored`,
 * `mayBeShortName`): `.git.`, `.git::$INDEX_ALLOCATION`, `GIT~1` and
 * `.git` with an invisible character in it all name `.git` somewhere.
 *
 * The table is data so docs/security-model.md can print it
 * (sensitive-paths-doc.test.ts holds the two equal).
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
    ],
    true,
    CREDENTIAL_WHY,
  ),
  ...rules(
    'credentials',
    'pattern',
    ['^\\.env\\..+', '^id_(?:rsa|dsa|ecdsa|ed25519)(?:[._-].*)?$'],
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
  // Where hook managers keep the hooks git runs through them.
  ...rules('git', 'folder', ['.husky', '.githooks', '.lefthook'], false, GIT_WHY),
  ...rules(
    'git',
    'name',
    [
      '.pre-commit-config.yaml',
      'lefthook.yml',
      'lefthook.yaml',
      '.lefthook.yml',
      '.lefthook.yaml',
      '.overcommit.yml',
    ],
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
      // direnv runs it in the person's shell on entering the folder.
      '.envrc',
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
    ['.mcp.json', 'claude_desktop_config.json', '.claude.json', '.aider.conf.yml'],
    true,
    AGENT_CONFIG_WHY,
  ),
  ...rules('runs-later', 'pattern', ['\\.code-workspace$'], false, RUNS_LATER_WHY),
])

export interface SensitiveFinding {
  class: SensitiveClass
  rule: SensitiveRule
  /** Why, in English, finishing the sentence "<path>: …". */
  reason: string
  /** Whether a read of it asks too (the rule's `readAsks`, and a git
   *  config anywhere in .git: a remote's URL there can carry a token). */
  readAsks: boolean
}

const FOLDER_RULES = SENSITIVE_RULES.filter((rule) => rule.match === 'folder').map(
  // Paths are compared lower-cased; so are the entries, some written in
  // the case their tool uses (`Library/Keychains`).
  (rule, order) => ({ rule, segments: rule.value.toLowerCase().split('/'), order }),
)
/** The folder rules by their first segment: a path is looked up once per
 *  segment, not matched against every rule (the sandbox's walk asks for
 *  every name in the workspace). */
const FOLDER_RULES_BY_FIRST = new Map<string, (typeof FOLDER_RULES)[number][]>()
for (const entry of FOLDER_RULES) {
  const first = entry.segments[0] ?? ''
  FOLDER_RULES_BY_FIRST.set(first, [...(FOLDER_RULES_BY_FIRST.get(first) ?? []), entry])
}
const NAME_RULE_LIST = SENSITIVE_RULES.filter((rule) => rule.match === 'name')
const NAME_RULES = new Map(NAME_RULE_LIST.map((rule) => [rule.value, rule]))
const PATTERN_RULES = SENSITIVE_RULES.filter((rule) => rule.match === 'pattern').map((rule) => ({
  rule,
  pattern: new RegExp(rule.value),
}))

/** A version control system's config in its folder: a remote's URL there
 *  can carry a token (`.git/config`, `.hg/hgrc`, `.jj/repo/config.toml`). */
const VCS_CONFIGS: ReadonlySet<string> = new Set(['config', 'hgrc', 'config.toml'])

/** The rule `p` falls under, or null. */
export function sensitivePath(p: string): SensitiveFinding | null {
  const split = p
    .toLowerCase()
    .split(/[\\/]+/)
    .filter((s) => s !== '')
  // Most paths have no segment stored otherwise than written: one test of
  // the whole path spares reading each segment again.
  const segments = STORED_OTHERWISE.test(p) ? split.map(segmentAsStored) : split
  const base = segments.at(-1)
  if (base === undefined) return null
  // Only a path with a `~` can hold a short name: the rest compare as
  // they are, which keeps the sandbox's walk of every name cheap.
  const short = p.includes('~')
  const same = short ? sameSegment : (written: string, ruled: string) => written === ruled

  const folderRule = short ? firstFolderRuleByScan(segments, same) : firstFolderRule(segments)
  if (folderRule !== null) {
    return found(
      folderRule,
      folderRule.readAsks || (folderRule.class === 'git' && VCS_CONFIGS.has(base)),
    )
  }
  const named =
    NAME_RULES.get(base) ??
    (short ? NAME_RULE_LIST.find((rule) => mayBeShortName(base, rule.value)) : undefined)
  if (named) return found(named, named.readAsks)
  for (const { rule, pattern } of PATTERN_RULES) {
    if (pattern.test(base)) return found(rule, rule.readAsks)
  }
  return null
}

/** Why a change to `p` needs a person every time, or null. */
export function sensitivePathReason(p: string): string | null {
  return sensitivePath(p)?.reason ?? null
}

/** The first folder rule, in the table's order, whose segments stand in
 *  `segments` consecutively anywhere; each compared as written. */
function firstFolderRule(segments: readonly string[]): SensitiveRule | null {
  let best: (typeof FOLDER_RULES)[number] | null = null
  for (let start = 0; start < segments.length; start += 1) {
    for (const entry of FOLDER_RULES_BY_FIRST.get(segments[start] ?? '') ?? []) {
      if (best !== null && entry.order >= best.order) continue
      if (entry.segments.every((segment, i) => segments[start + i] === segment)) best = entry
    }
  }
  return best?.rule ?? null
}

/** The same, each rule tried in turn, for segments that may be short
 *  names of the rule's (`GIT~1`), which no lookup by name finds. */
function firstFolderRuleByScan(
  segments: readonly string[],
  same: (written: string, ruled: string) => boolean,
): SensitiveRule | null {
  for (const { rule, segments: folder } of FOLDER_RULES) {
    if (containsRun(segments, folder, same)) return rule
  }
  return null
}

/** Whether `segments` holds `run` as consecutive segments, anywhere. */
function containsRun(
  segments: readonly string[],
  run: readonly string[],
  same: (written: string, ruled: string) => boolean,
): boolean {
  for (let start = 0; start + run.length <= segments.length; start += 1) {
    if (run.every((segment, i) => same(segments[start + i] ?? '', segment))) return true
  }
  return false
}

function sameSegment(written: string, ruled: string): boolean {
  return written === ruled || mayBeShortName(written, ruled)
}

/** Characters HFS+ leaves out of a name when it compares two (joiners,
 *  direction marks, the byte-order mark): `.g\u200cit` opens `.git` there. */
const IGNORED_BY_HFS = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu

/**
 * A lower-cased segment as the file system stores the name it opens,
 * wherever Assent runs: NFC (macOS keeps names decomposed), without what
 * HFS+ ignores, without an NTFS stream (`.git::$INDEX_ALLOCATION` is the
 * folder `.git`) and without the trailing dots and spaces Windows drops
 * (`.git.` and `.git ` are `.git`). Git refuses these spellings on every
 * platform for the same reason. `.` and `..` stay as they are.
 */
export function segmentAsStored(segment: string): string {
  if (segment === '.' || segment === '..') return segment
  let stored = segment.normalize('NFC').replace(IGNORED_BY_HFS, '')
  const stream = stored.indexOf(':')
  if (stream > 0) stored = stored.slice(0, stream)
  const trimmed = stored.replace(/[. ]+$/u, '')
  return trimmed === '' ? stored : trimmed
}

/** What may make a path's segment stored otherwise than written: a
 *  character outside printable ASCII, a colon, a dot or space that ends a
 *  segment. */
const STORED_OTHERWISE = /[^\x20-\x7e]|:|[. ](?:[\\/]|$)/u

/** An NTFS short (8.3) name: up to six characters, `~`, a number, and
 *  up to three of an extension. */
const SHORT_NAME = /^([^~]{1,6})~[1-9][0-9]{0,5}(?:\.[^.]{0,3})?$/u

/**
 * Whether the lower-cased segment `written` may be the NTFS short name
 * Windows gave `long` (`git~1` for `.git`, `github~1` for `.github`):
 * its stem begins what is left of the long name without dots and spaces,
 * or is the hashed form (the long name's first two characters and four
 * hexadecimal digits). A short name could stand for several long ones;
 * the rule takes the one that needs the person, failing closed.
 */
export function mayBeShortName(written: string, long: string): boolean {
  // Checked first: this runs for every segment against every entry.
  if (!written.includes('~')) return false
  const stem = SHORT_NAME.exec(written)?.[1]
  if (stem === undefined) return false
  const kept = long.replace(/[. ]/gu, '')
  if (kept.startsWith(stem)) return true
  return (
    stem.length === 6 && kept.startsWith(stem.slice(0, 2)) && /^[0-9a-f]{4}$/u.test(stem.slice(2))
  )
}

function found(rule: SensitiveRule, readAsks: boolean): SensitiveFinding {
  return { class: rule.class, rule, reason: rule.why, readAsks }
}
