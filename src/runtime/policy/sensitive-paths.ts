/**
 * Files whose change hands someone a credential or runs code later: keys,
 * tokens, shell start-up files, git hooks. The approve-for-me reviewer
 * refuses writes to them outright; nothing an agent does in a workspace
 * needs to change them without a person looking.
 *
 * Matching is on path segments and the base name, lower-cased, so
 * `/home/a/.SSH/config` matches on a case-insensitive file system and
 * `notes/ssh-tips.md` does not.
 */

/** Any path beneath one of these directories. */
const SENSITIVE_DIRECTORIES: ReadonlySet<string> = new Set([
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
])

/** These exact base names, wherever they are. */
const SENSITIVE_BASENAMES: ReadonlySet<string> = new Set([
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
  'config.fish',
])

/** `.env.local`, `.env.production`; `id_rsa`, `id_ed25519.pub`. */
const SENSITIVE_BASENAME_PATTERNS: readonly RegExp[] = [
  /^\.env\..+/,
  /^id_(?:rsa|dsa|ecdsa|ed25519)(?:[._-].*)?$/,
]

/** Why `p` is a sensitive file, or null. Both separators split segments, so
 *  the answer is the same for a path written on either platform. */
export function sensitivePathReason(p: string): string | null {
  const segments = p
    .toLowerCase()
    .split(/[\\/]+/)
    .filter((s) => s !== '')
  const base = segments.at(-1)
  if (base === undefined) return null

  for (const [i, segment] of segments.entries()) {
    if (SENSITIVE_DIRECTORIES.has(segment) && i < segments.length - 1) {
      return `it is inside ${segment}/, which holds credentials`
    }
    if (segment === '.git') {
      const next = segments[i + 1]
      // Hooks run on the next git command, and `core.fsmonitor` or
      // `core.hooksPath` in .git/config do the same.
      if (next === 'hooks') return 'it is a git hook, which runs as code'
      if (next === 'config' && i + 1 === segments.length - 1) {
        return 'it is a git config, which can name programs to run'
      }
    }
  }
  if (SENSITIVE_DIRECTORIES.has(base)) return `it is the ${base} directory, which holds credentials`
  if (SENSITIVE_BASENAMES.has(base)) return `${base} holds credentials or runs at shell start-up`
  if (SENSITIVE_BASENAME_PATTERNS.some((pattern) => pattern.test(base))) {
    return `${base} holds credentials`
  }
  return null
}
