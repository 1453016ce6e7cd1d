import { statSync, type Stats } from 'node:fs'
import path from 'node:path'

/** The OS user an MCP config is read for: this process's. */
export interface ConfigReader {
  uid: number
  gid: number
}

/** This process's user and group; null where the platform has neither
 *  owners nor modes here (Windows), whose profile ACLs keep a config. */
export function thisProcessReader(): ConfigReader | null {
  const uid = process.getuid?.()
  const gid = process.getgid?.()
  return uid === undefined || gid === undefined ? null : { uid, gid }
}

/**
 * Why another OS user could have written the MCP config at `real` (its
 * real path), or null when only its reader (or root) could. Whoever writes
 * the config chooses the programs the runtime or the gateway starts as
 * this user, and the manifests that let a server's tools run unasked; a
 * data folder is its owner's alone (private-folder.ts), but a config given
 * by path (`--config`, `ASSENT_MCP_CONFIG`) may lie anywhere.
 *
 * The file must be its reader's or root's and writable by no one else;
 * so must its folder, where another user could otherwise put a file of
 * their own in its place. A sticky folder (`/tmp`) lets others add their
 * own entries but not replace one of the reader's, and a file of theirs
 * put there is refused as theirs. Group write counts as others' unless the
 * group is the reader's own (the private group most systems give each
 * user). A config not there yet is judged when it is made: it is read
 * again, and judged again, at each change.
 */
export function configOpenToOthers(
  real: string,
  reader: ConfigReader | null = thisProcessReader(),
): string | null {
  if (reader === null) return null
  const file = statOrNull(real)
  const fileWhy = file === null ? null : writableByOthers(file, reader)
  if (fileWhy !== null) return `${real} ${fileWhy}`
  const folder = path.dirname(real)
  const held = statOrNull(folder)
  const folderWhy = held === null ? null : writableByOthers(held, reader)
  return folderWhy === null ? null : `its folder ${folder} ${folderWhy}`
}

function writableByOthers(stats: Stats, reader: ConfigReader): string | null {
  if (stats.uid !== reader.uid && stats.uid !== 0) return `belongs to user ${stats.uid}`
  const mode = (stats.mode & 0o7777).toString(8)
  const sticky = stats.isDirectory() && (stats.mode & 0o1000) !== 0
  if (sticky) return null
  if ((stats.mode & 0o002) !== 0) return `can be written by any user (mode ${mode})`
  if ((stats.mode & 0o020) !== 0 && stats.gid !== reader.gid) {
    return `can be written by group ${stats.gid} (mode ${mode})`
  }
  return null
}

function statOrNull(target: string): Stats | null {
  try {
    return statSync(target)
  } catch {
    // Not there (or not reachable): nothing of another's to refuse yet; a
    // config that cannot be read is refused by its reading.
    return null
  }
}
