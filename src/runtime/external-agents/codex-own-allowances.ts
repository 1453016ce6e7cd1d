import { homedir } from 'node:os'
import path from 'node:path'
import type { ExternalAgentConfig } from '../../contracts/agents-config.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import { agentEnvironment } from './agent-process.ts'
import { entriesOf, exists, textOf } from './agent-own-files.ts'
import {
  launchesAssentGateway,
  type GatewayCheck,
  type ServerLaunch,
} from './assent-gateway-launch.ts'

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
 *   it runs at its own events;
 * - the MCP servers its `config.toml` names (`configAllowances`).
 *
 * Codex reads them from its home (`CODEX_HOME`, or `~/.codex`), from the
 * machine's (`/etc/codex`, its `config.toml` and its administrator's
 * `managed_config.toml`: 0.169 ran a notify command from either, and a
 * command its rules allowed in a read-only thread with nobody asked) and
 * from the `.codex` folders of the project the workspace is in (a
 * repository can ship one). Each place found is returned, as a path; one
 * that cannot be read is returned too, since Codex might read what Assent
 * could not. `environment` is the agent's own (agent-process.ts
 * `agentEnvironment`); `machineFolder` is `/etc/codex` but in tests.
 */
export function codexOwnAllowances(
  environment: Readonly<Record<string, string | undefined>>,
  workspace: string,
  machineFolder = CODEX_MACHINE_FOLDER,
): string[] {
  const home = environment.HOME ?? homedir()
  const codexHome = path.resolve(workspace, environment.CODEX_HOME ?? path.join(home, '.codex'))
  const ownMarkers = [codexHome, machineFolder].some(setsRootMarkers)
  const project = projectFolders(path.resolve(workspace), ownMarkers)
  const places = [codexHome, machineFolder, ...project.map((folder) => path.join(folder, '.codex'))]
  // Assent's gateway is known by the program it starts, which must not be
  // one the agent, or the repository it works on, could have put there.
  const gateway: GatewayCheck = { searchPath: environment.PATH, writable: project }
  return [...new Set(places)].flatMap((place) => allowancesIn(place, gateway))
}

/**
 * Whether a config in `place` names the markers of a project's root
 * (`project_root_markers`) in place of `.git`: with `["x"]` and an `x` in
 * a folder above the repository, 0.169 followed the rules in that
 * folder's `.codex`. Written anywhere in the file, it counts.
 */
function setsRootMarkers(place: string): boolean {
  return CONFIG_FILES.some((name) => {
    const text = textOf(path.join(place, name))
    return typeof text === 'string' && /^\s*project_root_markers\s*=/m.test(text)
  })
}

/** Where Codex reads the machine's own config, rules and hooks. */
export const CODEX_MACHINE_FOLDER = '/etc/codex'

/** The config files Codex reads in a place: its own, and the one an
 *  administrator manages (read from the machine's folder; counted in
 *  every place, since reading one more file can only refuse more). */
const CONFIG_FILES = ['config.toml', 'managed_config.toml']

/**
 * The folders whose `.codex` Codex reads as its project's: the workspace
 * and each folder above it up to the project's root, the nearest that
 * holds `.git` (Codex's default root marker); the workspace alone when
 * none does. Checked with 0.169: rules in the workspace's `.codex` were
 * followed, in a folder above a workspace that is no repository's were not.
 * Where a config names other markers (`ownMarkers`), every folder above
 * the workspace, since its root may be any of them.
 */
function projectFolders(workspace: string, ownMarkers: boolean): string[] {
  const chain: string[] = []
  for (let folder = workspace; ; folder = path.dirname(folder)) {
    chain.push(folder)
    if (!ownMarkers && exists(path.join(folder, '.git'))) return chain
    if (path.dirname(folder) === folder) return ownMarkers ? chain : [workspace]
  }
}

function allowancesIn(place: string, gateway: GatewayCheck): string[] {
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
  for (const name of CONFIG_FILES) {
    const config = path.join(place, name)
    const text = textOf(config)
    if (text === 'unreadable') found.push(config)
    else if (text !== null) {
      found.push(...configAllowances(text, gateway).map((what) => `${config} (${what})`))
    }
  }
  return found
}

/**
 * What in a Codex `config.toml` acts without asking: its hooks; its
 * `notify` command, which Codex 0.169 ran after every turn, outside its
 * sandbox (it wrote outside the workspace of a read-only thread), with the
 * agent's last message as an argument; each MCP server Codex calls itself
 * (it called a server's tool that says it only reads, `readOnlyHint`, the
 * server's word, with nobody asked, and any tool of a server set to
 * `approve`); and each plugin, which brings MCP servers and hooks of its
 * own. A server that starts Assent's own gateway and nothing else
 * (assent-gateway-launch.ts, judged with `gateway`; without it none is) is
 * left out: it asks the person itself, in its room. A server or plugin
 * turned off (`enabled = false`) is left out too. Read line by line, table
 * by table, once every multi-line string is one line (withOneLineStrings),
 * which is all a config this needs to judge uses; anything written
 * otherwise (an inline `mcp_servers = {…}`, dotted keys) counts.
 */
export function configAllowances(written: string, gateway?: GatewayCheck): string[] {
  const text = withOneLineStrings(written)
  // A string left open: Codex reads none of the file, but it is not this
  // reading's to judge what it would make of it, so the file counts.
  if (text === null) return ['strings this reading cannot follow']
  const found = new Set<string>()
  /** Each server or plugin, by its kind and name, with the lines of its
   *  own table and the names of the tables under it. */
  const named = new Map<
    string,
    { kind: NamedKind; name: string; lines: string[]; subtables: Set<string> }
  >()
  let table: string[] = []
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[\[?([^\]]*)\]\]?\s*(#.*)?$/.exec(line)
    if (header) {
      table = keyPath(header[1] ?? '')
      const kind = namedKind(table[0])
      if (table[0] === 'hooks') found.add('its hooks')
      else if (kind && table.length === 1) found.add(`its ${NAMED[kind].plural}`)
      else if (kind) {
        const id = JSON.stringify([kind, table[1]])
        const entry = named.get(id) ?? { kind, name: table[1]!, lines: [], subtables: new Set() }
        named.set(id, entry)
        if (table.length > 2) entry.subtables.add(table[2]!)
      }
      continue
    }
    const kind = namedKind(table[0])
    if (kind && table.length >= 2) {
      if (table.length === 2) named.get(JSON.stringify([kind, table[1]]))!.lines.push(line)
      continue
    }
    const key = /^\s*([^=#]+?)\s*=/.exec(line)
    if (!key) continue
    const keyAt = [...table, ...keyPath(key[1] ?? '')]
    const keyKind = namedKind(keyAt[0])
    if (keyAt[0] === 'hooks') found.add('its hooks')
    else if (keyAt[0] === 'notify' && keyAt.length === 1) found.add('its notify command')
    else if (keyKind) found.add(`its ${NAMED[keyKind].plural}`)
  }
  for (const { kind, name, lines, subtables } of named.values()) {
    if (lines.some((line) => /^\s*enabled\s*=\s*false\b/.test(line))) continue
    if (kind === 'mcp_servers' && gateway !== undefined) {
      const launch = serverLaunch(lines, subtables)
      if (launch !== null && launchesAssentGateway(launch, gateway)) continue
    }
    found.add(`${NAMED[kind].one} ${JSON.stringify(name)}`)
  }
  return [...found]
}

/** The tables of named entries that act unasked unless turned off. */
const NAMED = {
  mcp_servers: { one: 'MCP server', plural: 'MCP servers' },
  plugins: { one: 'plugin', plural: 'plugins' },
} as const
type NamedKind = keyof typeof NAMED

function namedKind(key: string | undefined): NamedKind | null {
  return key === 'mcp_servers' || key === 'plugins' ? key : null
}

/** What a server's table may hold beside its launch without changing what
 *  runs: turning it off, timeouts, which of its tools are offered and how
 *  Codex treats them. */
const LAUNCH_NEUTRAL = new Set([
  'command',
  'args',
  'enabled',
  'required',
  'startup_timeout_sec',
  'startup_timeout_ms',
  'tool_timeout_sec',
  'enabled_tools',
  'disabled_tools',
  'tools',
])

/**
 * A server's `command` and `args` as Codex reads them from its table's
 * lines, and every other key it sets (an `env`, a `cwd`, a table under it
 * but `tools`); null where they are not written as plain strings, which
 * this reading does not judge.
 */
function serverLaunch(
  lines: readonly string[],
  subtables: ReadonlySet<string>,
): ServerLaunch | null {
  const text = lines.join('\n')
  const keys = lines.flatMap((line) => {
    const key = /^\s*([A-Za-z0-9_"'.-]+?)\s*=/.exec(line)
    return key ? [keyPath(key[1] ?? '')[0] ?? ''] : []
  })
  const otherKeys = [...keys, ...subtables].filter((key) => !LAUNCH_NEUTRAL.has(key))
  const command = /^\s*command\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*(#.*)?$/m.exec(text)
  const args = /^\s*args\s*=\s*\[/m.exec(text)
  const commandValue = command ? tomlString(command[1]!) : null
  if (commandValue === null) return null
  if (!args) return { command: commandValue, args: [], otherKeys }
  const list = tomlStringArray(text.slice(args.index + args[0].length))
  return list === null ? null : { command: commandValue, args: list, otherKeys }
}

/** A TOML string as written, or null for one this reading does not take
 *  (an escape JSON does not share). */
function tomlString(written: string): string | null {
  if (written.startsWith("'")) return written.slice(1, -1)
  try {
    return JSON.parse(written) as string
  } catch {
    return null
  }
}

/** The strings of an array whose `[` came just before `rest`, up to its
 *  `]`, across lines and comments; null for anything but strings. */
function tomlStringArray(rest: string): string[] | null {
  const items: string[] = []
  const token = /\s+|,|#[^\n]*|"(?:[^"\\]|\\.)*"|'[^']*'|\]/y
  for (let at = 0; at < rest.length;) {
    token.lastIndex = at
    const match = token.exec(rest)
    if (match === null) return null
    at = token.lastIndex
    const [written] = match
    if (written === ']') return items
    if (written.startsWith('"') || written.startsWith("'")) {
      const value = tomlString(written)
      if (value === null) return null
      items.push(value)
    }
  }
  return null
}

/**
 * `text` with each multi-line string (`"""…"""`, `'''…'''`) written as an
 * empty one-line string, or null where a string is not closed. Read line by
 * line, a line inside one would pass for a key or a table: `enabled =
 * false` there turned a server off, and `[tui]` there put the `notify` key
 * after it in a table it is not in. A comment is kept as written, quotes
 * and all.
 */
function withOneLineStrings(text: string): string | null {
  let out = ''
  let at = 0
  while (at < text.length) {
    const char = text[at]!
    if (char === '#') {
      const end = text.indexOf('\n', at)
      const stop = end === -1 ? text.length : end
      out += text.slice(at, stop)
      at = stop
    } else if (text.startsWith('"""', at) || text.startsWith("'''", at)) {
      const quote = text.slice(at, at + 3)
      let end = at + 3
      for (;;) {
        end = text.indexOf(quote, end)
        if (end === -1) return null
        if (quote === "'''" || !escaped(text, end)) break
        end += 1
      }
      // Up to two more quotes close it too: they belong to its content.
      let close = end + 3
      while (close < end + 5 && text[close] === quote[0]) close += 1
      out += quote[0]!.repeat(2)
      at = close
    } else if (char === '"' || char === "'") {
      let end = at + 1
      for (;;) {
        end = text.indexOf(char, end)
        if (end === -1 || text.slice(at, end).includes('\n')) return null
        if (char === "'" || !escaped(text, end)) break
        end += 1
      }
      out += text.slice(at, end + 1)
      at = end + 1
    } else {
      out += char
      at += 1
    }
  }
  return out
}

/** Whether the character at `index` is escaped: an odd run of
 *  backslashes before it. */
function escaped(text: string, index: number): boolean {
  let backslashes = 0
  while (text[index - 1 - backslashes] === '\\') backslashes += 1
  return backslashes % 2 === 1
}

/** A TOML key path (`a."b.c".d`) as its keys. */
function keyPath(text: string): string[] {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3] ?? '',
  )
}

/** Throws, naming what was found, when Codex's own files would let an
 *  agent built on it act unasked in a room that is not full access. */
export function refuseCodexOwnAllowances(
  agent: Pick<ExternalAgentConfig, 'pass_env' | 'set_env'>,
  workspace: string,
  source: NodeJS.ProcessEnv,
  mode: PermissionMode,
  machineFolder = CODEX_MACHINE_FOLDER,
): void {
  // Full access asks nothing anyway: Assent's policy runs everything.
  if (mode === 'full-access') return
  const found = codexOwnAllowances(agentEnvironment(agent, source), workspace, machineFolder)
  if (found.length === 0) return
  // A Codex home of its own leaves the machine's folder in force.
  const machine = found.some((place) => place.startsWith(`${machineFolder}/`))
    ? `; those in ${machineFolder} apply to every Codex on this machine`
    : ''
  throw new Error(
    `Codex's own settings would let it act without asking Assent: ${found.join(', ')}. ` +
      `Move them aside (an MCP server can go behind assent-gateway), or give the agent a Codex home of its own (CODEX_HOME in its set_env in agents.json)${machine}`,
  )
}
