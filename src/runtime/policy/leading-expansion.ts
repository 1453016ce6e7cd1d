import { readFileSync } from 'node:fs'
import { homedir, userInfo } from 'node:os'
import path from 'node:path'

// What a name means when it starts with a folder a shell, or a server that
// expands it (Python's `expanduser`, server-filesystem's `~`), takes from
// its environment, for the person-only and private-read rules. Read as
// written, `~bob/x` or `$PWD/../x` is a folder of that name in the
// workspace, while what runs reads another user's home or the folder above.

/** A user name as the user database holds one (POSIX's portable names). */
const USER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*\$?$/

/** `~`, `~<name>`, `~+`, `~-`, `~N`, `$HOME`, `$PWD`, `$OLDPWD` (braced
 *  too), alone or followed by `/…`. */
const LEADING = /^(?:~([^/]*)|\$(HOME|PWD|OLDPWD)|\$\{(HOME|PWD|OLDPWD)\})(?=\/|$)/

/** A variable that makes a whole path segment (`$X/…`, `…/${X}/…`):
 *  its value, which may hold `/` and `..`, is the shell's or the
 *  server's. */
const SEGMENT_VARIABLE = /(?:^|\/)\$(?:\{[^}]*\}|[A-Za-z_]\w*|\d|[@*#?$!-])(?=\/|$)/

/**
 * The path `name` stands for when it starts with such a folder, or null:
 * - the person's home for `~`, `~<their name>`, `$HOME`;
 * - another user's home for `~<name>`, from the user database;
 * - for the folder it runs in (`~+`, `$PWD`), the same path taken as
 *   relative (`./…`): it is resolved from every folder relative paths are
 *   taken from, which for a command are its folder and each one it `cd`s
 *   to.
 * The folder it ran in before (`~-`, `$OLDPWD`) and its folder stack
 * (`~N`, `~+N`, `~-N`) are null: they are `namesUnknownPlace`'s.
 */
export function leadingExpansion(name: string): string | null {
  const match = LEADING.exec(name)
  if (match === null) return null
  const rest = name.slice(match[0].length)
  const variable = match[2] ?? match[3]
  if (variable === 'HOME') return path.join(homedir(), rest)
  if (variable === 'PWD') return `.${rest}`
  if (variable !== undefined) return null
  const tilde = match[1] ?? ''
  if (tilde === '' || tilde === personName()) return path.join(homedir(), rest)
  if (tilde === '+') return `.${rest}`
  const home = USER_NAME.test(tilde) ? userHomes().get(tilde) : undefined
  return home === undefined ? null : path.join(home, rest)
}

/**
 * Whether `name` leads to a place only the shell or the server knows: a
 * user's home the user database does not list (`~bob` of a directory
 * service), or a variable making a segment of a path other than those
 * `leadingExpansion` reads (`$XDG_CONFIG_HOME/gh/hosts.yml`,
 * `docs/$X/../..`). Such a name is judged as neither inside the workspace
 * nor outside it: the rules that ask for it treat it as unknown.
 */
export function namesUnknownPlace(name: string): boolean {
  if (namesUnknownHome(name)) return true
  // A variable alone (`echo $USER`, `bump to $VERSION`) is a word, not a
  // path: only one with a folder beside it is read as a place.
  const known = LEADING.exec(name)?.[0].length ?? 0
  const rest = name.slice(known)
  return name.includes('/') && SEGMENT_VARIABLE.test(rest)
}

/** Whether `name` starts with a folder known only where it is expanded:
 *  the home of a user the user database does not list, the folder a
 *  shell ran in before (`~-`, `$OLDPWD`) or one of its folder stack. */
export function namesUnknownHome(name: string): boolean {
  const match = LEADING.exec(name)
  if (match === null || leadingExpansion(name) !== null) return false
  const tilde = match[1]
  return tilde === undefined || USER_NAME.test(tilde) || /^[+-]?\d*$/.test(tilde)
}

/** Why a name `namesUnknownHome` finds needs the person, in English. */
export const UNKNOWN_HOME_WHY =
  'it starts with a folder only the shell or the server knows (another user’s home this machine does not list, or a folder it was in before), so it cannot be checked'

/** Why a name `namesUnknownPlace` finds, but `namesUnknownHome` does not,
 *  needs the person where a command is not contained, in English. */
export const UNKNOWN_PLACE_WHY =
  'a variable only the shell or the server knows makes a folder of it, which may be a place only a person may change, so it cannot be checked'

function personName(): string {
  try {
    return userInfo().username
  } catch {
    return ''
  }
}

let homes: Map<string, string> | undefined

/** Each user's home, as /etc/passwd lists them, read once: users of a
 *  directory service are not listed, and their `~name` is unknown. */
function userHomes(): Map<string, string> {
  if (homes !== undefined) return homes
  homes = new Map()
  let text = ''
  try {
    text = readFileSync('/etc/passwd', 'utf8')
  } catch {
    // Unreadable: every other user's `~name` is unknown.
  }
  for (const line of text.split('\n')) {
    const fields = line.split(':')
    const [user, home] = [fields[0], fields[5]]
    if (user && home && path.isAbsolute(home)) homes.set(user, home)
  }
  return homes
}
