import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import type { SandboxMode } from '../../contracts/policy-axes.ts'
import { personOnlyPathsInRoots } from '../policy/read-only-walk.ts'
import { HOME_SECRET_FOLDERS } from '../policy/secret-folders.ts'
import { sensitivePath } from '../policy/sensitive-paths.ts'
import { hiddenFileFolders, type HiddenFileFolder } from './hidden-file-folders.ts'
import { hiddenFromCommands } from './home-credentials.ts'

/** Something the command must see as empty: a folder as an empty folder, a
 *  file as an empty file. */
export interface HiddenPath {
  path: string
  kind: 'folder' | 'file'
}

/**
 * What an allowed command may touch, decided once as a value that every
 * way of starting a command (bubblewrap on Linux, Seatbelt on macOS) is
 * built from: there is no second list to forget.
 *
 * Everything outside `writableRoots` is read-only; inside them,
 * `readOnlyInside` stays read-only; every `hidden` path shows as empty.
 * There is no network.
 */
export interface CommandSandboxPolicy {
  /** Real, existing folders the command may change files in; none under a
   *  read-only room. */
  writableRoots: string[]
  /** Real, existing paths inside a writable root that stay read-only. */
  readOnlyInside: string[]
  /** Real, existing paths the command sees as empty. */
  hidden: HiddenPath[]
  /** Real folders inside a writable root on the way from it to a hidden
   *  path, parents first, each bound onto itself (still writable) so that
   *  no command can rename or remove it: a mount hides a path, and a
   *  folder above it renamed takes the mount along, leaving the path free
   *  for a folder of the command's own (Assent's data folder with an
   *  `agents.json` of its choosing). A mount point cannot be renamed or
   *  removed (EBUSY). */
  hiddenAncestors: string[]
  /** The folders holding hidden files, shown as read-only copies with
   *  each hidden file empty in them (hidden-file-folders.ts), where a
   *  mount can stand in for the folder; parents first. */
  hiddenFileFolders: HiddenFileFolder[]
  /** Folders replaced by empty, writable ones of the command's own, under
   *  everything else: `/tmp`, so nothing written there reaches the host and
   *  nothing of the host's is seen, and `/run`, whose sockets (the session
   *  bus, a container daemon) accept connections whatever a read-only
   *  mount says. */
  privateScratch: string[]
  /** Always false: no policy field lets an Assent command reach the
   *  network, so the sandbox never gives one. */
  network: false
}

export interface SandboxPolicyInput {
  sandboxMode: Exclude<SandboxMode, 'danger-full-access'>
  /** The workspace's real path. */
  workspace: string
  /** Real folders this turn's person let it write in besides the workspace. */
  extraWritableRoots: readonly string[]
  /** Paths inside the writable roots that stay read-only, absolute. Absent:
   *  what always needs a person (person-only.ts) found in each writable
   *  root, all of `.git` among them. */
  readOnlyInside?: readonly string[]
  /** The home folder whose credential folders (HOME_SECRET_FOLDERS) are
   *  hidden. */
  home: string
  /** Credentials found deeper in the home folder, and the folders a walk
   *  that stopped did not finish (home-credentials.ts), hidden too unless
   *  they lie in a writable root (a project's own `.env` is the
   *  project's). */
  deepCredentials?: readonly string[]
  /** Assent's own files: its data folder (database, sealed keys, the gateway
   *  connection file), its config files and any folder holding them. */
  assentPrivate: readonly string[]
  /** Credential places the person's environment names away from their
   *  usual ones (environment-credentials.ts: `$GNUPGHOME`, `$KUBECONFIG`),
   *  hidden wherever they are, in a writable root too: the person said
   *  they hold their keys. */
  namedCredentials?: readonly string[]
}

/**
 * The policy for one command, read from the file system at the moment the
 * command starts, never cached: a credential folder created after the
 * runtime started is hidden from the next command, and a `.git` made since
 * is read-only for it. What does not exist when the command starts cannot
 * be kept read-only: what the command makes of the table's paths is moved
 * aside once it ends (policy/made-person-only.ts).
 *
 * Only what exists can be hidden or kept read-only (a mount needs a place
 * to land). A credential folder that does not exist holds no secret to
 * read; one the person creates while a command is still running is not
 * hidden from that command, but is from every later one.
 */
export function sandboxPolicyFor(input: SandboxPolicyInput): CommandSandboxPolicy {
  const writable = writableRootsOf(input)
  // The same rule every door applies: a command the person allowed once
  // still cannot change what no grant, reviewer or webhook may change.
  const readOnlyAsked = input.readOnlyInside ?? personOnlyPathsInRoots(writable).paths
  const hidden: HiddenPath[] = []
  const seen = new Set<string>()
  const hide = (candidate: string) => {
    const found = existing(candidate)
    if (found === null || seen.has(found.path)) return
    seen.add(found.path)
    hidden.push(found)
  }
  for (const folder of HOME_SECRET_FOLDERS) hide(path.join(input.home, ...folder.split('/')))
  for (const name of homeCredentialFiles(input.home)) hide(path.join(input.home, name))
  for (const deep of input.deepCredentials ?? []) {
    if (!writable.some((root) => deep === root || deep.startsWith(root + path.sep))) hide(deep)
  }
  for (const own of input.assentPrivate) hide(own)
  for (const named of input.namedCredentials ?? []) hide(named)
  // A path inside a folder that is hidden already is hidden with it; a
  // mount over it would have to be made inside the empty folder, which
  // bubblewrap cannot do (and which would refuse every command).
  const shownHidden = hidden.filter(
    (inner) =>
      !hidden.some(
        (outer) =>
          outer !== inner &&
          outer.kind === 'folder' &&
          inner.path.startsWith(outer.path + path.sep),
      ),
  )
  const privateScratch = ['/tmp', '/run'].filter((scratch) => existing(scratch)?.kind === 'folder')
  return {
    writableRoots: writable,
    hiddenAncestors: hiddenAncestors(shownHidden, writable),
    readOnlyInside: unique(readOnlyAsked.map(realOrNull)).filter((inside) =>
      writable.some((root) => inside !== root && inside.startsWith(root + path.sep)),
    ),
    hidden: shownHidden,
    hiddenFileFolders: hiddenFileFolders(shownHidden, [...writable, ...privateScratch]),
    privateScratch,
    network: false,
  }
}

/** The real, existing folders a command under `input` may change files
 *  in: none in a read-only room. */
export function writableRootsOf(
  input: Pick<SandboxPolicyInput, 'sandboxMode' | 'workspace' | 'extraWritableRoots'>,
): string[] {
  return input.sandboxMode === 'read-only'
    ? []
    : unique([input.workspace, ...input.extraWritableRoots].map(realOrNull))
}

/**
 * Each folder between a writable root and a hidden path inside it, from
 * the outermost root that holds the path (a folder between it and a root
 * nested in it would take the nested one along too), less the roots
 * themselves, which are mount points already.
 */
function hiddenAncestors(hidden: readonly HiddenPath[], writable: readonly string[]): string[] {
  const folders = new Set<string>()
  for (const entry of hidden) {
    const outer = writable
      .filter((root) => entry.path.startsWith(root === '/' ? root : root + path.sep))
      .sort((a, b) => a.length - b.length)[0]
    if (outer === undefined) continue
    for (let up = path.dirname(entry.path); up !== outer; up = path.dirname(up)) {
      if (!writable.includes(up)) folders.add(up)
    }
  }
  return [...folders].sort((a, b) => a.length - b.length || a.localeCompare(b))
}

function realOrNull(candidate: string): string | null {
  try {
    return realpathSync.native(candidate)
  } catch {
    return null
  }
}

/**
 * The entries at the top of the home folder a read of which asks at every
 * door because they hold a secret: credential files the table names
 * (`.netrc`, `.git-credentials`, `.npmrc`, `.pgpass`, an `id_ed25519`
 * left there), version control configs that may carry a remote's token
 * (`.hgrc`), and agents' configs that carry their MCP servers' tokens
 * (`.claude.json`: `hiddenFromCommands`). One read of the folder, so an entry made later is hidden from
 * the next command. The shell's start-up files, which a read asks for
 * too, stay readable: a shell started in the sandbox needs them (see
 * docs/security-model.md, the sandbox's limits).
 */
function homeCredentialFiles(home: string): string[] {
  let names: string[]
  try {
    names = readdirSync(home)
  } catch {
    return []
  }
  return names.filter((name) => {
    const found = sensitivePath(name)
    return hiddenFromCommands(found) || (found?.readAsks === true && found.class === 'git')
  })
}

function existing(candidate: string): HiddenPath | null {
  // Most candidates are absent (the table of credential folders is long):
  // a stat that says so without throwing costs a fraction of a failed
  // realpath. Any other answer, an error included, goes on to the
  // realpath, which decides as before.
  if (absent(candidate)) return null
  const real = realOrNull(candidate)
  if (real === null) return null
  try {
    return { path: real, kind: lstatSync(real).isDirectory() ? 'folder' : 'file' }
  } catch {
    return null
  }
}

function absent(candidate: string): boolean {
  try {
    return statSync(candidate, { throwIfNoEntry: false }) === undefined
  } catch {
    return false
  }
}

function unique(paths: ReadonlyArray<string | null>): string[] {
  return [...new Set(paths.filter((p): p is string => p !== null))]
}
