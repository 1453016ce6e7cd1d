import { realpathSync } from 'node:fs'
import path from 'node:path'
import { HOME_SECRET_FOLDERS } from './secret-folders.ts'

// Where the person's environment moved a credential place away from the
// home folder's usual one (`GNUPGHOME=/srv/me/gnupg`,
// `XDG_CONFIG_HOME=~/.xdg`, whose `gh/hosts.yml` is GitHub's token). The
// table (sensitive-path-rules.ts) knows places by their usual names only,
// and a command the person allowed is given none of these variables
// (command-environment.ts) but may still name the place they point to. So
// the places they name are credential places too: the command sandbox
// hides them, and at every door a read of one asks and a change needs the
// person (sensitive-paths.ts), as for `~/.gnupg`.

/** Variables whose value is a credential file or folder itself, as the
 *  tool that reads it takes it. */
const PLACE_VARIABLES: readonly string[] = [
  'GNUPGHOME',
  'PASSWORD_STORE_DIR',
  'DOCKER_CONFIG',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'CLOUDSDK_CONFIG',
  'AZURE_CONFIG_DIR',
  'NETRC',
  'GH_CONFIG_DIR',
  'npm_config_userconfig',
  'NPM_CONFIG_USERCONFIG',
  'PGPASSFILE',
  'TF_CLI_CONFIG_FILE',
  'RCLONE_CONFIG',
  'HF_TOKEN_PATH',
  // The display's cookie files, wherever the login put them
  // (`/run/user/1000/gdm/Xauthority`).
  'XAUTHORITY',
  'ICEAUTHORITY',
]

/** Variables whose value is a list of credential files (`a:b`). */
const LIST_VARIABLES: readonly string[] = ['KUBECONFIG']

/** Variables whose value is a tool's own folder, and the files in it
 *  that hold its credentials. */
const HOME_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  CARGO_HOME: ['credentials.toml', 'credentials'],
  GRADLE_USER_HOME: ['gradle.properties'],
  COMPOSER_HOME: ['auth.json'],
  CODEX_HOME: ['auth.json'],
  CLAUDE_CONFIG_DIR: ['.credentials.json'],
  HF_HOME: ['token'],
}

/** Variables that move a part of the home folder, and that part: each
 *  credential place of HOME_SECRET_FOLDERS in it is where the variable
 *  says (`$XDG_CONFIG_HOME/gh`, `$XDG_DATA_HOME/keyrings`). */
const MOVED_PARTS: Readonly<Record<string, string>> = {
  XDG_CONFIG_HOME: '.config/',
  XDG_DATA_HOME: '.local/share/',
}

/** A credential place the environment names, and the variable naming it. */
export interface NamedCredentialPlace {
  place: string
  variable: string
}

/**
 * The credential places `env` names, as absolute paths (not resolved).
 * Only an absolute value names a place: a relative one means a folder of
 * whatever process reads it. A value that is `/` or holds the home folder
 * names no credential place but everything (a misspelled variable), and
 * hidden it would take the workspace from every command: it is left out.
 */
export function credentialPlacesNamedBy(
  env: NodeJS.ProcessEnv,
  home: string,
): NamedCredentialPlace[] {
  const found: NamedCredentialPlace[] = []
  const add = (variable: string, place: string) => {
    if (!path.isAbsolute(place)) return
    const resolved = path.resolve(place)
    if (holds(resolved, path.resolve(home))) return
    found.push({ place: resolved, variable })
  }
  for (const variable of PLACE_VARIABLES) {
    const value = env[variable]
    if (value) add(variable, value)
  }
  for (const variable of LIST_VARIABLES) {
    for (const each of (env[variable] ?? '').split(path.delimiter)) {
      if (each) add(variable, each)
    }
  }
  for (const [variable, files] of Object.entries(HOME_VARIABLES)) {
    const value = env[variable]
    if (value && path.isAbsolute(value))
      for (const file of files) add(variable, path.join(value, file))
  }
  for (const [variable, part] of Object.entries(MOVED_PARTS)) {
    const value = env[variable]
    if (!value || !path.isAbsolute(value)) continue
    for (const folder of HOME_SECRET_FOLDERS) {
      if (folder.startsWith(part)) add(variable, path.join(value, folder.slice(part.length)))
    }
  }
  return found
}

function holds(folder: string, inner: string): boolean {
  return folder === inner || inner.startsWith(folder === path.sep ? folder : folder + path.sep)
}

/** The places kept by `keepCredentialPlacesOf`, lower-cased, as written
 *  and as real paths. */
const kept: { lower: string; place: string; variable: string }[] = []

/**
 * Adds the credential places `env` names to those every door judges in
 * this process (`namedCredentialPlace`), each as written and at its real
 * path (a place under a link is read by its real path). Only ever added to,
 * as Assent's own files are (assent-own-paths.ts).
 */
export function keepCredentialPlacesOf(env: NodeJS.ProcessEnv, home: string): void {
  for (const { place, variable } of credentialPlacesNamedBy(env, home)) {
    for (const spelled of [place, realPathOf(place)]) {
      if (spelled === null) continue
      const lower = spelled.toLowerCase()
      if (!kept.some((each) => each.lower === lower)) kept.push({ lower, place: spelled, variable })
    }
  }
}

/**
 * The kept place an absolute path is or lies in, or null. Compared
 * lower-cased, as the table compares (a case-insensitive file system opens
 * `/SRV/me/GnuPG` as `/srv/me/gnupg`): a path that only differs in case is
 * judged as the place, which can only ask more.
 */
export function namedCredentialPlace(p: string): NamedCredentialPlace | null {
  if (kept.length === 0 || !path.isAbsolute(p)) return null
  const lower = path.resolve(p).toLowerCase()
  for (const each of kept) {
    if (holds(each.lower, lower)) return { place: each.place, variable: each.variable }
  }
  return null
}

/** The kept places that lie in `folder` (an absolute path), each as kept:
 *  a command that reads the folder whole reads them. */
export function namedCredentialPlacesIn(folder: string): string[] {
  const lower = path.resolve(folder).toLowerCase()
  return kept.filter((each) => holds(lower, each.lower)).map((each) => each.place)
}

/** The real path of `place`, or of its folder with its name when it does
 *  not exist yet (a kubeconfig not made), or null. */
function realPathOf(place: string): string | null {
  try {
    return realpathSync.native(place)
  } catch {
    try {
      return path.join(realpathSync.native(path.dirname(place)), path.basename(place))
    } catch {
      return null
    }
  }
}
