/**
 * `npm run agents:install`: installs the pinned real agents (Codex CLI,
 * codex-acp and claude-agent-acp, agents/package-lock.json) into the cache folder with
 * `npm ci --prefix`, unless the ones there already match. `npm test` runs it
 * first. Prints what it does; on failure exits 1 with the fix.
 */
import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  AGENTS_MANIFEST_DIR,
  agentsCacheDir,
  findInstalledAgents,
  INSTALL_FIX,
  LOCK_STAMP_FILE,
  lockfileDigest,
  PINNED_AGENT_PACKAGES,
  pinnedVersion,
} from './agent-cache.ts'

function describe(): string {
  return PINNED_AGENT_PACKAGES.map((name) => `${name}@${pinnedVersion(name)}`).join(', ')
}

function runNpmCi(cacheDir: string): Promise<number> {
  return new Promise((resolve) => {
    // --ignore-scripts: the binaries ship inside the packages; nothing needs
    // to run at install time, so nothing from the registry runs here.
    const child = spawn(
      'npm',
      ['ci', '--prefix', cacheDir, '--ignore-scripts', '--no-audit', '--no-fund'],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    )
    child.on('error', (error) => {
      console.error(`agents: could not start npm: ${error.message}`)
      resolve(1)
    })
    child.on('exit', (code) => resolve(code ?? 1))
  })
}

/** Installs the agents if needed; resolves with why it failed, or undefined. */
export async function ensureAgentsInstalled(): Promise<string | undefined> {
  const cacheDir = agentsCacheDir()
  const found = findInstalledAgents(cacheDir)
  if ('agents' in found) {
    console.log(`agents: ${describe()} are installed in ${cacheDir}`)
    return undefined
  }
  console.log(`agents: ${found.missing}`)
  console.log(`agents: installing ${describe()} into ${cacheDir} (about 720 MB, once)`)
  let realDir: string
  try {
    rmSync(join(cacheDir, LOCK_STAMP_FILE), { force: true })
    mkdirSync(cacheDir, { recursive: true })
    for (const file of ['package.json', 'package-lock.json']) {
      copyFileSync(join(AGENTS_MANIFEST_DIR, file), join(cacheDir, file))
    }
    // npm ci on a folder reached through a symbolic link reads the link as
    // a package of its own and refuses the lockfile: give it the real path.
    realDir = realpathSync(cacheDir)
  } catch (error) {
    return `${cacheDir} cannot be prepared (${(error as Error).message}); ${INSTALL_FIX}`
  }
  const started = Date.now()
  const code = await runNpmCi(realDir)
  if (code !== 0) return `npm ci exited with code ${code}; ${INSTALL_FIX}`
  writeFileSync(join(cacheDir, LOCK_STAMP_FILE), `${lockfileDigest()}\n`)
  const after = findInstalledAgents(cacheDir)
  if ('missing' in after) return `${after.missing} after npm ci; ${INSTALL_FIX}`
  console.log(`agents: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return undefined
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const failure = await ensureAgentsInstalled()
  if (failure) {
    console.error(`agents: could not install the agents: ${failure}`)
    process.exitCode = 1
  }
}
