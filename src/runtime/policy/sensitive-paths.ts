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
 * answer is the same for a path written on either platform.
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
const RUNS_LATER_WHY = 'it makes code run later without anyone being asked'

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
      // The desktop runs these at the next login.
      '.config/autostart',
      '.config/systemd',
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
    ],
    false,
    RUNS_LATER_WHY,
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

const FOLDER_RULES = SENSITIVE_RULES.filter((rule) => rule.match === 'folder').map((rule) => ({
  rule,
  segments: rule.value.split('/'),
}))
const NAME_RULES = new Map(
  SENSITIVE_RULES.filter((rule) => rule.match === 'name').map((rule) => [rule.value, rule]),
)
const PATTERN_RULES = SENSITIVE_RULES.filter((rule) => rule.match === 'pattern').map((rule) => ({
  rule,
  pattern: new RegExp(rule.value),
}))

/** The rule `p` falls under, or null. */
export function sensitivePath(p: string): SensitiveFinding | null {
  const segments = p
    .toLowerCase()
    .split(/[\\/]+/)
    .filter((s) => s !== '')
  const base = segments.at(-1)
  if (base === undefined) return null

  for (const { rule, segments: folder } of FOLDER_RULES) {
    if (containsRun(segments, folder)) {
      return found(rule, rule.readAsks || (rule.class === 'git' && base === 'config'))
    }
  }
  const named = NAME_RULES.get(base)
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

/** Whether `segments` holds `run` as consecutive segments, anywhere. */
function containsRun(segments: readonly string[], run: readonly string[]): boolean {
  for (let start = 0; start + run.length <= segments.length; start += 1) {
    if (run.every((segment, i) => segments[start + i] === segment)) return true
  }
  return false
}

function found(rule: SensitiveRule, readAsks: boolean): SensitiveFinding {
  return { class: rule.class, rule, reason: rule.why, readAsks }
}
