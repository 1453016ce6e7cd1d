import { existsSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'

// Where git runs a repository's hooks from when its config moves them
// (`core.hooksPath`): a folder no grant or automatic allow may write to
// (person-only.ts), found as git itself finds and reads it.

/**
 * The real folder git runs hooks from when the workspace's repository sets
 * `core.hooksPath`, or null. The repository is the one git finds: the
 * nearest `.git` at the workspace or above it (a workspace may be a folder
 * inside a repository), read from its config (or the git folder a `.git`
 * file points to). A relative value is taken from the repository's top,
 * where git runs its hooks. A config that cannot be read names no folder:
 * the default hooks folder is inside .git, which the table covers anyway.
 */
export function hooksFolderOf(workspace: string): string | null {
  const repository = repositoryOf(workspace)
  if (repository === null) return null
  let config: string
  try {
    config = readFileSync(path.join(repository.gitFolder, 'config'), 'utf8')
  } catch {
    return null
  }
  const value = coreHooksPath(config)
  if (value === null) return null
  const expanded = value.startsWith('~/') ? path.join(homeFolder(), value.slice(2)) : value
  return realPathAllowingMissing(path.resolve(repository.top, expanded))
}

/** The repository git would find from `workspace`: the nearest folder at
 *  or above it holding `.git`, and its git folder; null if none, or if the
 *  nearest `.git` cannot be read. */
function repositoryOf(workspace: string): { top: string; gitFolder: string } | null {
  let top = path.resolve(workspace)
  for (;;) {
    const gitFolder = gitFolderAt(top)
    if (gitFolder !== undefined) return gitFolder === null ? null : { top, gitFolder }
    const parent = path.dirname(top)
    if (parent === top) return null
    top = parent
  }
}

/** The git folder of a repository whose top is `top`; undefined when there
 *  is no `.git` there, null when there is one that cannot be read. */
function gitFolderAt(top: string): string | null | undefined {
  const dotGit = path.join(top, '.git')
  // Every door asks this on every action, for each folder up to the root,
  // and most have no .git: a stat that reports "none" without throwing
  // costs a fraction of a read that fails.
  let found: Stats | undefined
  try {
    found = statSync(dotGit, { throwIfNoEntry: false })
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? undefined : null
  }
  if (found === undefined) return undefined
  if (found.isDirectory()) return dotGit
  try {
    const pointer = readFileSync(dotGit, 'utf8')
    const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(pointer)?.[1]
    return gitdir === undefined ? null : path.resolve(top, gitdir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // EISDIR: a .git folder made since the stat.
    if (code === 'EISDIR') return dotGit
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null
  }
}

/** `hooksPath` in the `[core]` section of a git config, or null, read as
 *  git reads it: keys and section names are case-insensitive, a key may
 *  follow its section header on the same line, and the value is read by
 *  `configValue`. Reading it otherwise would name a folder git does not
 *  use, and leave the one it does use to any door. */
export function coreHooksPath(config: string): string | null {
  let inCore = false
  let found: string | null = null
  for (const raw of config.split(/\r?\n/)) {
    let line = raw.trim()
    const section = /^\[\s*([^\]\s]+)[^\]]*\](.*)$/.exec(line)
    if (section) {
      inCore = section[1]?.toLowerCase() === 'core'
      line = (section[2] ?? '').trim()
    }
    if (!inCore) continue
    const entry = /^hookspath\s*=(.*)$/i.exec(line)
    const value = entry ? configValue(entry[1] ?? '') : ''
    if (value !== '') found = value
  }
  return found
}

/** A git config value as git reads it: `;` or `#` outside double quotes
 *  starts a comment, the quotes themselves are dropped, a backslash
 *  escapes the next character (n, t and b as in C), and white space
 *  outside quotes is trimmed at both ends. */
function configValue(raw: string): string {
  let value = ''
  let kept = 0
  let quoted = false
  for (let i = 0; i < raw.length; i += 1) {
    const char = raw[i] ?? ''
    if (char === '\\') {
      i += 1
      const next = raw[i] ?? ''
      value += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next
      kept = value.length
      continue
    }
    if (char === '"') {
      quoted = !quoted
      kept = value.length
      continue
    }
    if (!quoted && (char === ';' || char === '#')) break
    if (!quoted && value === '' && /\s/.test(char)) continue
    value += char
    if (quoted || !/\s/.test(char)) kept = value.length
  }
  return value.slice(0, kept)
}

function homeFolder(): string {
  return homedir()
}

/** The real path of `absolute`, following links, with a missing tail
 *  appended as written; null if not even its folder resolves. */
export function realPathAllowingMissing(absolute: string): string | null {
  let tail = ''
  let current = absolute
  for (let i = 0; i < 64; i += 1) {
    // A missing path (a file the action would create) is the common case:
    // asked without an exception first, which costs more than the lookup.
    if (existsSync(current)) {
      try {
        const real = realpathSync.native(current)
        return tail === '' ? real : path.join(real, tail)
      } catch {
        // Gone since it was found: judged as missing, as it now is.
      }
    }
    const parent = path.dirname(current)
    if (parent === current) return null
    tail = tail === '' ? path.basename(current) : path.join(path.basename(current), tail)
    current = parent
  }
  return null
}
