import { spawn } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import path from 'node:path'
import { giveDescriptor3 } from '../tools/command-launcher.ts'
import { bwrapArgs } from './bwrap-args.ts'
import { sandboxSeccompFilter } from './seccomp-filter.ts'

/** Where commands can be contained on this machine, or why they cannot. */
export type SandboxAvailability =
  | {
      available: true
      kind: 'bubblewrap'
      program: string
      /** What bubblewrap reads on descriptor 3 (seccomp-filter.ts). */
      seccompFilter: Buffer
    }
  | { available: true; kind: 'seatbelt'; program: string }
  | {
      available: false
      /** What is missing, in words: "bubblewrap (bwrap) is not in
       *  /usr/bin, /bin or on PATH". */
      missing: string
      /** What would make it available: "install it: apt-get install bubblewrap". */
      fix: string
    }

/** Where macOS keeps `sandbox-exec`; never looked up on PATH, where a
 *  folder the person controls could put another program first. */
export const SANDBOX_EXEC_PATH = '/usr/bin/sandbox-exec'

/** A probe gets this long to start a sandbox and run `true` in it. */
export const PROBE_TIMEOUT_MS = 10_000

const BWRAP_FIX =
  'install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)'

/**
 * The first executable file called `name` in the folders of `searchPath`
 * that only the system can change: the folder and the file owned by root
 * and writable by no group or other user. A folder the person owns (or an
 * agent's command could write to) is passed over: a program left there by
 * an earlier command would otherwise be taken for the sandbox itself.
 */
export function findOnPath(name: string, searchPath: string | undefined): string | null {
  for (const folder of (searchPath ?? '').split(path.delimiter)) {
    if (folder === '' || !path.isAbsolute(folder)) continue
    const candidate = path.join(folder, name)
    try {
      if (!systemOwned(folder)) continue
      const stats = statSync(candidate)
      if (!stats.isFile() || !systemOwned(candidate)) continue
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      continue
    }
  }
  return null
}

/** Owned by root and writable by no group or other user (stat follows a
 *  link, so a link is judged by what it leads to). */
function systemOwned(p: string): boolean {
  const stats = statSync(p)
  return stats.uid === 0 && (stats.mode & 0o022) === 0
}

/**
 * Finds out, by trying, whether commands can be contained here: on Linux,
 * bubblewrap in the system's folders or on PATH (in a folder only the
 * system can change), with Assent's seccomp filter for this machine, that can
 * start the very namespaces a command gets (it fails where unprivileged
 * user namespaces are off, and then says so), with a command in it that
 * holds no capability and runs under the filter (read from its
 * `/proc/self/status`); on macOS,
 * `sandbox-exec`. Anywhere else there is no sandbox.
 */
export async function probeSandbox(
  platform: NodeJS.Platform = process.platform,
  searchPath: string | undefined = process.env.PATH,
  arch: string = process.arch,
  systemFolders: readonly string[] = SYSTEM_BIN_FOLDERS,
): Promise<SandboxAvailability> {
  if (platform === 'darwin') {
    try {
      accessSync(SANDBOX_EXEC_PATH, constants.X_OK)
      return { available: true, kind: 'seatbelt', program: SANDBOX_EXEC_PATH }
    } catch {
      return {
        available: false,
        missing: `${SANDBOX_EXEC_PATH} is not there`,
        fix: 'use a macOS that ships sandbox-exec',
      }
    }
  }
  if (platform !== 'linux') {
    return {
      available: false,
      missing: `Assent has no command sandbox for ${platform} yet`,
      fix: 'use full access for this room only if you accept that commands run with all your rights, or set ASSENT_ALLOW_UNCONTAINED_COMMANDS=1',
    }
  }
  const seccompFilter = sandboxSeccompFilter(arch)
  if (seccompFilter === null) {
    return {
      available: false,
      missing: `Assent has no seccomp filter for ${arch} machines, which its sandbox needs`,
      fix: 'use an x64 or arm64 machine, or set ASSENT_ALLOW_UNCONTAINED_COMMANDS=1 if you accept that commands run with all your rights',
    }
  }
  // The system's own folders first: run by root, every folder root made
  // passes for one only the system can change, and a `bwrap` a command
  // left in one on PATH (a project's `node_modules/.bin`, which `npm
  // start` puts first) would otherwise be taken at the next start.
  const lookIn = [...systemFolders, searchPath ?? ''].join(path.delimiter)
  const bwrap = findOnPath('bwrap', lookIn)
  if (bwrap === null) {
    const where = systemFolders.length === 0 ? '' : `in ${systemFolders.join(', ')} or `
    return {
      available: false,
      missing: `bubblewrap (bwrap) is not ${where}on PATH`,
      fix: BWRAP_FIX,
    }
  }
  // What reads the command's capabilities inside: from a folder only the
  // system can change, as bwrap itself is.
  const cat = findOnPath('cat', [...SYSTEM_BIN_FOLDERS, searchPath ?? ''].join(path.delimiter))
  if (cat === null) {
    return {
      available: false,
      missing: 'no cat in a folder only the system can change, to check the sandbox with',
      fix: 'install coreutils',
    }
  }
  const tried = await tryBubblewrap(bwrap, cat, seccompFilter)
  if (tried.ok) {
    const held = capabilitiesHeld(tried.status)
    // Fails closed: a command holding a capability could remount what it
    // was given read-only and write through to the host.
    if (held !== null) {
      return {
        available: false,
        missing: `a command in ${bwrap}'s sandbox would keep capabilities (${held})`,
        fix: 'install a bubblewrap that drops them (0.1.8 or later: --cap-drop ALL)',
      }
    }
    // Fails closed too: without the filter a command reaches a daemon's
    // Unix socket, the kernel's keyrings, a user namespace of its own.
    const unfiltered = filterMissing(tried.status)
    if (unfiltered !== null) {
      return {
        available: false,
        missing: `a command in ${bwrap}'s sandbox would run without Assent's seccomp filter (${unfiltered})`,
        fix: 'install a bubblewrap that installs one (--seccomp, 0.1.8 or later) on a kernel with seccomp filters',
      }
    }
    return { available: true, kind: 'bubblewrap', program: bwrap, seccompFilter }
  }
  return {
    available: false,
    missing: `${bwrap} cannot start a sandbox here (${tried.failure})`,
    fix: 'enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or allow bwrap in AppArmor: kernel.apparmor_restrict_unprivileged_userns), or install bubblewrap setuid',
  }
}

/** What the filter leaves in a process's status: `Seccomp: 2` (filter
 *  mode) and `NoNewPrivs: 1`, as bubblewrap leaves a command it gave
 *  `--seccomp`. */
const FILTERED_STATUS: ReadonlyArray<readonly [field: string, value: string]> = [
  ['Seccomp', '2'],
  ['NoNewPrivs', '1'],
]

/**
 * Why a process's status says it does not run under a seccomp filter with
 * no new privileges, or null when it does. What cannot be read is not
 * taken as there.
 */
export function filterMissing(status: string): string | null {
  const missing = FILTERED_STATUS.flatMap(([field, wanted]) => {
    const value = statusField(status, field)
    if (value === undefined) return [`${field} unreadable`]
    return value === wanted ? [] : [`${field}=${value}`]
  })
  return missing.length === 0 ? null : missing.join(', ')
}

/** Where the system keeps its programs, looked in before PATH. */
export const SYSTEM_BIN_FOLDERS: readonly string[] = Object.freeze(['/usr/bin', '/bin'])

/** The capability sets of `/proc/<pid>/status` a process can use or gain. */
const CAPABILITY_SETS = ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']

/**
 * The capability sets in a process's status that are not empty, as
 * `CapEff=…`, or null when every one is there and empty. A set missing
 * from the status counts as held: what cannot be read is not taken as
 * empty.
 */
export function capabilitiesHeld(status: string): string | null {
  const held: string[] = []
  for (const set of CAPABILITY_SETS) {
    const value = statusField(status, set)
    if (value === undefined || !/^[0-9a-f]+$/.test(value)) held.push(`${set} unreadable`)
    else if (!/^0+$/.test(value)) held.push(`${set}=${value}`)
  }
  return held.length === 0 ? null : held.join(', ')
}

/** One field of a `/proc/<pid>/status`, or undefined when it is not there. */
function statusField(status: string, field: string): string | undefined {
  return new RegExp(`^${field}:\\s*(\\S+)\\s*$`, 'm').exec(status)?.[1]
}

/** Runs `cat /proc/self/status` in a sandbox with every namespace and
 *  setting a command gets: what it printed, or what bubblewrap said. */
function tryBubblewrap(
  bwrap: string,
  cat: string,
  seccompFilter: Buffer,
): Promise<{ ok: true; status: string } | { ok: false; failure: string }> {
  // Exactly what a command gets, under the narrowest policy: what is
  // checked is what runs.
  const args = bwrapArgs(
    {
      writableRoots: [],
      hiddenAncestors: [],
      readOnlyInside: [],
      hidden: [],
      hiddenFileFolders: [],
      privateScratch: ['/tmp'],
      network: false,
    },
    { argv: [cat, '/proc/self/status'], env: {}, cwd: '/' },
    new Map(),
  )
  return new Promise((resolve) => {
    let said = ''
    let status = ''
    const child = spawn(bwrap, args, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env: {} })
    giveDescriptor3(child, seccompFilter)
    const [, stdout, stderr] = child.stdio
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve({ ok: false, failure: `it did not finish within ${PROBE_TIMEOUT_MS} ms` })
    }, PROBE_TIMEOUT_MS)
    stdout?.on('data', (chunk: Buffer) => {
      if (status.length < 64_000) status += chunk.toString('utf8')
    })
    stderr?.on('data', (chunk: Buffer) => {
      if (said.length < 2_000) said += chunk.toString('utf8')
    })
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ ok: false, failure: error.message })
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve({ ok: true, status })
      else resolve({ ok: false, failure: said.trim().split('\n')[0] || `exit ${code ?? signal}` })
    })
  })
}
