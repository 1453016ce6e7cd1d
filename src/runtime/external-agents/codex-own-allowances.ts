import { readdirSync, readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import type { ExternalAgentConfig } from '../../contracts/agents-config.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import { agentEnvironment } from './agent-process.ts'

/**
 * Codex's own files that let a Codex-based agent (Codex app-server,
 * codex-acp) act without asking anyone, whatever approval policy or session
 * mode Assent gives it:
 *
 * - its command rules (`rules/*.rules`, written when someone picks "don't
 *   ask again for commands that start with …" in Codex): a command one
 *   allows runs unasked and outside Codex's sandbox. A rule allowing
 *   `touch` had Codex 0.169 (app-server) run it with Assent never asked,
 *   and codex-acp 0.16 in its read-only mode write a file in the workspace,
 *   which that mode's sandbox lets no command do;
 * - its hooks (`hooks.json`, a `[hooks]` table in `config.toml`): commands
 *   it runs at its own events.
 *
 * Codex reads them from its home (`CODEX_HOME`, or `~/.codex`) and from the
 * `.codex` folders of the project the workspace is in (a repository can
 * ship one). Each place found is returned, as a path; one that cannot
 * be read is returned too, since Codex might read what Assent could not.
 * `environment` is the agent's own (agent-process.ts `agentEnvironment`).
 */
export function codexOwnAllowances(
  environment: Readonly<Record<string, string | undefined>>,
  workspace: string,
): string[] {
  const home = environment.HOME ?? homedir()
  const codexHome = environment.CODEX_HOME ?? path.join(home, '.codex')
  const places = [
    path.resolve(workspace, codexHome),
    ...projectFolders(path.resolve(workspace)).map((folder) => path.join(folder, '.codex')),
  ]
  return [...new Set(places)].flatMap(allowancesIn)
}

/**
 * The folders whose `.codex` Codex reads as its project's: the workspace
 * and each folder above it up to the project's root, the nearest that
 * holds `.git` (Codex's default root marker); the workspace alone when
 * none does. Checked with 0.169: rules in the workspace's `.codex` were
 * followed, in a folder above a workspace that is no repository's were not.
 */
function projectFolders(workspace: string): string[] {
  const chain: string[] = []
  for (let folder = workspace; ; folder = path.dirname(folder)) {
    chain.push(folder)
    if (exists(path.join(folder, '.git'))) return chain
    if (path.dirname(folder) === folder) return [workspace]
  }
}

function allowancesIn(place: string): string[] {
  const found: string[] = []
  const rules = path.join(place, 'rules')
  const ruleFiles = entriesOf(rules)
  if (ruleFiles === 'unreadable') found.push(rules)
  else
    found.push(
      ...ruleFiles.filter((name) => name.endsWith('.rules')).map((name) => path.join(rules, name)),
    )
  const hooks = path.join(place, 'hooks.json')
  if (exists(hooks)) found.push(hooks)
  const config = path.join(place, 'config.toml')
  const text = textOf(config)
  if (text === 'unreadable' || (text !== null && HOOKS_TABLE.test(text))) found.push(config)
  return found
}

/** A `[hooks]` table (or `[hooks.…]`, `[[hooks…]]`) or a `hooks =` key at
 *  the top of a TOML file. */
const HOOKS_TABLE = /^\s*(\[\[?\s*"?hooks"?\s*[.\]]|"?hooks"?\s*=)/m

function entriesOf(folder: string): string[] | 'unreadable' {
  try {
    return readdirSync(folder)
  } catch (error) {
    return missing(error) ? [] : 'unreadable'
  }
}

function textOf(file: string): string | null | 'unreadable' {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    return missing(error) ? null : 'unreadable'
  }
}

function exists(file: string): boolean {
  try {
    statSync(file)
    return true
  } catch (error) {
    // Something there that cannot be looked at counts as there.
    return !missing(error)
  }
}

function missing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** Throws, naming what was found, when Codex's own files would let an
 *  agent built on it act unasked in a room that is not full access. */
export function refuseCodexOwnAllowances(
  agent: Pick<ExternalAgentConfig, 'pass_env' | 'set_env'>,
  workspace: string,
  source: NodeJS.ProcessEnv,
  mode: PermissionMode,
): void {
  // Full access asks nothing anyway: Assent's policy runs everything.
  if (mode === 'full-access') return
  const found = codexOwnAllowances(agentEnvironment(agent, source), workspace)
  if (found.length === 0) return
  throw new Error(
    `Codex's own rules or hooks would let it act without asking Assent: ${found.join(', ')}. ` +
      'Move them aside, or give the agent a Codex home of its own (CODEX_HOME in its set_env in agents.json)',
  )
}
