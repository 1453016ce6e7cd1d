import path from 'node:path'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import { entriesOf, textOf } from './agent-own-files.ts'

/**
 * The settings an administrator manages for every Claude agent on a
 * machine (`managed-settings.json`, and each `*.json` in
 * `managed-settings.d`). Assent turns the person's and the workspace's
 * Claude settings off for each session (acp-client.ts), but these are read
 * whatever a session turns off: with one allowing `Bash` and naming a
 * hook, claude-agent-acp 0.23.1 ran the model's command and the hook with
 * Assent never asked. What in them only narrows what Claude may do is
 * left alone; anything else counts, a key this list does not know
 * included, so that a setting added in a later version fails closed.
 */
export function claudeManagedAllowances(folder = claudeManagedFolder()): string[] {
  const files = [path.join(folder, 'managed-settings.json')]
  const dropIns = path.join(folder, 'managed-settings.d')
  const names = entriesOf(dropIns)
  if (names === 'unreadable') return [dropIns]
  files.push(
    ...names
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => path.join(dropIns, name)),
  )
  return files.flatMap((file) => {
    const text = textOf(file)
    if (text === null) return []
    if (text === 'unreadable') return [file]
    let settings: unknown
    try {
      settings = JSON.parse(text)
    } catch {
      return [`${file} (not JSON)`]
    }
    return managedSettingsAllowances(settings).map((key) => `${file} (${key})`)
  })
}

/** Where the Claude Agent SDK reads them on this platform. */
export function claudeManagedFolder(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return '/Library/Application Support/ClaudeCode'
  if (platform === 'win32') return 'C:\\Program Files\\ClaudeCode'
  return '/etc/claude-code'
}

/** Settings that only narrow what Claude may do, or change nothing it
 *  does: its announcements, its model, which logins and servers it may
 *  use, and that only managed rules and hooks count. */
const NARROWING_ONLY: ReadonlySet<string> = new Set([
  '$schema',
  'allowManagedDomainsOnly',
  'allowManagedHooksOnly',
  'allowManagedMcpServersOnly',
  'allowManagedPermissionRulesOnly',
  'allowManagedReadPathsOnly',
  'allowedMcpServers',
  'alwaysThinkingEnabled',
  'cleanupPeriodDays',
  'companyAnnouncements',
  'deniedMcpServers',
  'disableAllHooks',
  'disabledMcpjsonServers',
  'forceLoginMethod',
  'forceLoginOrgUUID',
  'includeCoAuthoredBy',
  'model',
  'outputStyle',
  'spinnerTipsEnabled',
  'strictKnownMarketplaces',
])
/** Of `permissions`: rules that refuse or ask, and bypass mode turned off. */
const NARROWING_PERMISSIONS: ReadonlySet<string> = new Set([
  'ask',
  'deny',
  'disableBypassPermissionsMode',
])

/**
 * The keys of one managed settings file that may let Claude act without
 * asking (`permissions.allow`, `hooks`, `sandbox`, a helper command, …),
 * as dotted paths; a file that is not an object counts whole.
 */
export function managedSettingsAllowances(settings: unknown): string[] {
  if (!isObject(settings)) return ['not an object']
  const found: string[] = []
  for (const [key, value] of Object.entries(settings)) {
    if (key !== 'permissions') {
      if (!NARROWING_ONLY.has(key)) found.push(key)
      continue
    }
    if (!isObject(value)) {
      found.push(key)
      continue
    }
    for (const rule of Object.keys(value)) {
      if (!NARROWING_PERMISSIONS.has(rule)) found.push(`permissions.${rule}`)
    }
  }
  return found
}

/** Throws, naming each setting found, when Claude's managed settings would
 *  let a Claude agent act unasked in a room that is not full access. */
export function refuseClaudeManagedSettings(
  mode: PermissionMode,
  folder = claudeManagedFolder(),
): void {
  // Full access asks nothing anyway: Assent's policy runs everything.
  if (mode === 'full-access') return
  const found = claudeManagedAllowances(folder)
  if (found.length === 0) return
  throw new Error(
    `Claude's managed settings would let it act without asking Assent: ${found.join(', ')}. ` +
      `Claude reads them for every session on this machine, whatever a session turns off; whoever manages ${folder} can move them aside`,
  )
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
