import { readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { assentOwnPathIn, assentOwnPlacesIn, ASSENT_OWN_WHY } from './assent-own-paths.ts'
import { namedCredentialPlacesIn } from './environment-credentials.ts'
import { FOLDER_LINKS_ENTRIES, linksInFolders } from './folder-links.ts'
import { lstatOfTheMoment } from './judgment-moment.ts'
import { isInsideRoot } from './path-containment.ts'
import type { PersonOnly } from './person-only.ts'
import { programsRun } from './programs-run.ts'
import { realPathOf } from './real-paths.ts'
import { HOME_SECRET_FOLDERS } from './secret-folders.ts'
import { sensitivePath } from './sensitive-paths.ts'

/**
 * For an external agent's command, which runs outside Assent's sandbox:
 * the first place the sandbox hides from Assent's own command that lies in
 * a folder the command names outside its workspace, or null. A command
 * reads what lies in the folders it names without naming it: `grep -r
 * PRIVATE ~` reads `~/.ssh/id_ed25519`, `tar c ~/.config | base64` GitHub's
 * token in `~/.config/gh`, `find /srv -exec cat {} +` a `$GNUPGHOME` kept
 * there. A path of the command names the folder, never the key, so the
 * name rule finds nothing; the sandbox, which would hide them, is not
 * there. So such a command needs the person, as a read of the key would.
 *
 * Looked for in each named folder: the person's credential folders and
 * files (HOME_SECRET_FOLDERS, and the credential files at the home
 * folder's top), the credential places their environment names
 * (environment-credentials.ts) and Assent's own files. A folder in the
 * workspace is the project's, as it is to the sandbox, and not looked in.
 * Credentials deeper in the home folder that no list names (another
 * project's `.env`) are the sandbox's walk's, not this rule's. A command
 * whose every program only prints its words (`echo "$HOME"`) reads none
 * of them; any other program may read a folder it is given.
 */
export function credentialsHeldBy(
  resolved: readonly string[],
  workspace: string,
  readings: readonly { words: readonly string[] }[],
): PersonOnly | null {
  const programs = programsRun(readings, () => () => true)
  if (programs.length > 0 && programs.every(({ name }) => PRINTS_ONLY.has(name))) return null
  const realWorkspace = realOrAsIs(workspace)
  for (const folder of new Set(resolved)) {
    if (isInsideRoot(realWorkspace, folder)) continue
    const held = heldIn(folder)
    if (held === null) continue
    const what = held.class === 'assent-own' ? ASSENT_OWN_WHY : 'it holds credentials'
    return {
      path: held.path,
      class: held.class === 'assent-own' ? 'assent-own' : 'reads-credentials',
      reason: `${what}, and the command reads ${folder}, which holds it`,
    }
  }
  return null
}

/**
 * For an external agent's command: `credentialsLinkedFrom` for every link
 * in `folders` (the workspace, a server's own folder), found by the walk
 * every door makes of a folder read whole (folder-links.ts), `node_modules`
 * included: `npm link` leaves links there, and `grep -R` goes through them
 * as through any other. Fails closed: a folder too large to walk whole, or
 * holding one that cannot be listed, needs the person, since a link past
 * what the walk read is not known.
 */
export function credentialsLinkedFromFolders(
  folders: readonly string[],
  workspace: string,
): PersonOnly | null {
  const real = folders.flatMap((folder) => realPathOf(folder) ?? [])
  const found = linksInFolders(real, real)
  if (found.truncated !== null) {
    return {
      path: found.truncated,
      class: 'links-unchecked',
      reason: `it holds more than ${FOLDER_LINKS_ENTRIES} entries, more than are checked for a symbolic link leading to credentials`,
    }
  }
  if (found.unlistable !== null) {
    return {
      path: found.unlistable,
      class: 'links-unchecked',
      reason:
        'its entries cannot be read, so it cannot be checked for a symbolic link leading to credentials',
    }
  }
  return credentialsLinkedFrom(
    found.links.map(({ link }) => link),
    workspace,
  )
}

/** How many links of the workspace `credentialsLinkedFrom` resolves at
 *  most; past it the command needs the person. */
export const MAX_LINKS_RESOLVED = 2_000

/**
 * For an external agent's command: the first symbolic link in its
 * workspace (`links`, as the workspace's walk met them) that leads
 * outside it to a place the sandbox hides from Assent's own command, to a
 * folder holding one, or into one; or null. A program that follows links
 * (`grep -R PRIVATE .`, `tar ch . | base64`, `rg -L`) reads through it
 * what no word of the command names, and a link is made by a command the
 * person allowed once, or comes with a cloned repository (`keys ->
 * ../../.ssh`). Fails closed: more links than are resolved need the
 * person too.
 */
export function credentialsLinkedFrom(
  links: readonly string[],
  workspace: string,
): PersonOnly | null {
  if (links.length > MAX_LINKS_RESOLVED) {
    return {
      path: workspace,
      class: 'unwalked',
      reason: `it holds more than ${MAX_LINKS_RESOLVED} symbolic links, more than are checked for one leading to credentials`,
    }
  }
  const realWorkspace = realOrAsIs(workspace)
  for (const link of links) {
    const target = realPathOf(link)
    if (target === null || isInsideRoot(realWorkspace, target)) continue
    const found = sensitivePath(target)
    const own = assentOwnPathIn([target])
    const into =
      found?.readAsks === true && found.class === 'credentials'
        ? { class: 'credentials' as const, why: `it holds credentials (${found.reason})` }
        : own !== null
          ? { class: 'assent-own' as const, why: ASSENT_OWN_WHY }
          : null
    const held = into === null ? heldIn(target) : null
    const what =
      into?.why ?? (held?.class === 'assent-own' ? ASSENT_OWN_WHY : 'it holds credentials')
    if (into === null && held === null) continue
    // Named by the private place it reaches, which the window shows.
    const reached = held?.path ?? target
    const ownReached = (into?.class ?? held?.class) === 'assent-own'
    return {
      path: reached,
      class: ownReached ? 'assent-own' : 'reads-credentials',
      reason: `${what}, and ${link} in the workspace leads to it; a command that follows links reads it`,
    }
  }
  return null
}

/** The first credential place (the home folder's, the environment's) or
 *  file of Assent's own that lies in `folder` (a real path), or null. */
function heldIn(folder: string): Pick<PersonOnly, 'path' | 'class'> | null {
  if (lstatOfTheMoment(folder)?.isDirectory() !== true) return null
  const credential = [...homeCredentialPlaces(), ...namedCredentialPlacesIn(folder)].find(
    (place) => place !== folder && isInsideRoot(folder, place) && exists(place),
  )
  if (credential !== undefined) return { path: credential, class: 'credentials' }
  const [own] = assentOwnPlacesIn(folder).filter(exists)
  return own === undefined ? null : { path: own, class: 'assent-own' }
}

/** Programs that print their words and read no file they name. */
const PRINTS_ONLY: ReadonlySet<string> = new Set(['echo', 'printf', 'true', 'false', ':'])

/** The person's credential folders and files at their real home folder:
 *  those of HOME_SECRET_FOLDERS, and the credential files at its top that
 *  the table names (`.netrc`, `.npmrc`, a key left there). */
function homeCredentialPlaces(): string[] {
  const home = realOrAsIs(homedir())
  let top: string[] = []
  try {
    top = readdirSync(home).filter((name) => {
      const found = sensitivePath(name)
      return found?.readAsks === true && found.class === 'credentials'
    })
  } catch {
    // A home folder that cannot be listed: its named folders are still
    // looked for by name.
  }
  return [
    ...HOME_SECRET_FOLDERS.map((folder) => path.join(home, ...folder.split('/'))),
    ...top.map((name) => path.join(home, name)),
  ]
}

function exists(place: string): boolean {
  return lstatOfTheMoment(place) !== undefined
}

/** The real path, looked up once per judgment (real-paths.ts), or the
 *  path as given when nothing is there to resolve. */
function realOrAsIs(folder: string): string {
  return realPathOf(folder) ?? folder
}
