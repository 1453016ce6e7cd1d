import { createHash } from 'node:crypto'
import { accessSync, constants, readFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Where the real agents the external-agent tests run are installed, and
 * whether the installed ones are the pinned ones. The versions are pinned in
 * agents/package.json and agents/package-lock.json, a manifest of their own
 * so that `npm install` never downloads them (the three packages weigh about
 * 720 MB); `npm run agents:install` (and so `npm test`) installs them into
 * an ignored cache folder.
 */

export const AGENTS_MANIFEST_DIR = fileURLToPath(new URL('../../agents/', import.meta.url))
const DEFAULT_CACHE_DIR = fileURLToPath(new URL('../../.tools/agents/', import.meta.url))

/** The cache folder: `ASSENT_AGENTS_DIR`, or `.tools/agents` in the checkout. */
export function agentsCacheDir(): string {
  return process.env.ASSENT_AGENTS_DIR ?? DEFAULT_CACHE_DIR
}

/** The file beside the installed packages that names the lockfile they were
 *  installed from, by its SHA-256. */
export const LOCK_STAMP_FILE = '.assent-lock-sha256'

export const INSTALL_FIX = 'run `npm run agents:install` (it needs the npm registry)'

export interface InstalledAgents {
  /** The native `codex` binary (run as `codex app-server`). */
  codex: string
  /** The native `codex-acp` binary. */
  codexAcp: string
  /** The folder of the `bwrap` Codex ships, which codex-acp needs on PATH
   *  when the system has none. */
  codexResources: string
  /** claude-agent-acp's entry point, a JavaScript file run with Node. */
  claudeAcp: string
}

/** The packages agents/package.json pins, each checked by version. */
export const PINNED_AGENT_PACKAGES: readonly string[] = Object.freeze([
  '@openai/codex',
  '@zed-industries/codex-acp',
  '@zed-industries/claude-agent-acp',
])

/** Codex's name for this machine's build (its vendor folder). */
const CODEX_TARGETS: Readonly<Record<string, string>> = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
}

export function lockfileDigest(): string {
  const lock = readFileSync(join(AGENTS_MANIFEST_DIR, 'package-lock.json'))
  return createHash('sha256').update(lock).digest('hex')
}

/** The pinned version of `name`, from agents/package.json. */
export function pinnedVersion(name: string): string {
  const manifest = JSON.parse(readFileSync(join(AGENTS_MANIFEST_DIR, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>
  }
  const version = manifest.dependencies[name]
  if (!version) throw new Error(`agents/package.json does not pin ${name}`)
  return version
}

function installedVersion(cacheDir: string, name: string): string | undefined {
  try {
    const path = join(cacheDir, 'node_modules', name, 'package.json')
    return (JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version
  } catch {
    return undefined
  }
}

function accessible(path: string, mode: number): boolean {
  try {
    accessSync(path, mode)
    return true
  } catch {
    return false
  }
}

const executable = (path: string): boolean => accessible(path, constants.X_OK)

/**
 * The installed agents, or why they cannot be used: not installed, another
 * version, installed from another lockfile, or no binary for this machine.
 */
export function findInstalledAgents(
  cacheDir = agentsCacheDir(),
): { agents: InstalledAgents } | { missing: string } {
  const platform = `${process.platform}-${process.arch}`
  const target = CODEX_TARGETS[platform]
  if (!target) return { missing: `no pinned agent build for ${platform}` }
  for (const name of PINNED_AGENT_PACKAGES) {
    const installed = installedVersion(cacheDir, name)
    const pinned = pinnedVersion(name)
    if (installed !== pinned) {
      return {
        missing: `${name} ${pinned} is not installed in ${cacheDir} (found ${installed ?? 'none'})`,
      }
    }
  }
  let stamp = ''
  try {
    stamp = readFileSync(join(cacheDir, LOCK_STAMP_FILE), 'utf8').trim()
  } catch {
    // No stamp: an install that never finished.
  }
  if (stamp !== lockfileDigest()) {
    return { missing: `${cacheDir} was not installed from the current agents/package-lock.json` }
  }
  const modules = join(cacheDir, 'node_modules')
  const vendor = join(modules, '@openai', `codex-${platform}`, 'vendor', target)
  const agents: InstalledAgents = {
    codex: join(vendor, 'bin', 'codex'),
    codexAcp: join(modules, '@zed-industries', `codex-acp-${platform}`, 'bin', 'codex-acp'),
    codexResources: join(vendor, 'codex-resources'),
    claudeAcp: join(modules, '@zed-industries', 'claude-agent-acp', 'dist', 'index.js'),
  }
  for (const binary of [agents.codex, agents.codexAcp]) {
    if (!executable(binary)) return { missing: `${binary} is missing or not executable` }
  }
  if (!accessible(agents.claudeAcp, constants.R_OK))
    return { missing: `${agents.claudeAcp} is missing` }
  return { agents }
}

/** Whether `tool` is an executable on `path` (a PATH value). */
export function onSearchPath(tool: string, path: string): boolean {
  return path.split(delimiter).some((dir) => dir !== '' && executable(join(dir, tool)))
}
