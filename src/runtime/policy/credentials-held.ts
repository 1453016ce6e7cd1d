import { readdirSync, realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { assentOwnPlacesIn, ASSENT_OWN_WHY } from './assent-own-paths.ts'
import { namedCredentialPlacesIn } from './environment-credentials.ts'
import { lstatOfTheMoment } from './judgment-moment.ts'
import { isInsideRoot } from './path-containment.ts'
import type { PersonOnly } from './person-only.ts'
import { programsRun } from './programs-run.ts'
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
    if (lstatOfTheMoment(folder)?.isDirectory() !== true) continue
    const credential = [...homeCredentialPlaces(), ...namedCredentialPlacesIn(folder)].find(
      (place) => place !== folder && isInsideRoot(folder, place) && exists(place),
    )
    if (credential !== undefined) {
      return {
        path: credential,
        class: 'credentials',
        reason: `it holds credentials, and the command reads ${folder}, which holds it`,
      }
    }
    const [own] = assentOwnPlacesIn(folder).filter(exists)
    if (own !== undefined) {
      return {
        path: own,
        class: 'assent-own',
        reason: `${ASSENT_OWN_WHY}, and the command reads ${folder}, which holds it`,
      }
    }
  }
  return null
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

function realOrAsIs(folder: string): string {
  try {
    return realpathSync.native(folder)
  } catch {
    return folder
  }
}
