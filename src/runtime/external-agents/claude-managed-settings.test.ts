import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  claudeManagedAllowances,
  claudeManagedFolder,
  managedSettingsAllowances,
  refuseClaudeManagedSettings,
} from './claude-managed-settings.ts'

let folder: string

beforeEach(() => {
  folder = join(realpathSync(mkdtempSync(join(tmpdir(), 'assent-claude-managed-'))), 'claude-code')
  mkdirSync(folder)
})
afterEach(() => rmSync(dirname(folder), { recursive: true, force: true }))

function write(name: string, text: string): string {
  const file = join(folder, name)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  return file
}

describe('what in a managed settings file lets Claude act without asking', () => {
  const table: Array<[string, unknown, string[]]> = [
    ['nothing', {}, []],
    [
      'only rules that refuse or ask, and bypass mode off',
      { permissions: { deny: ['Bash'], ask: ['Edit'], disableBypassPermissionsMode: 'disable' } },
      [],
    ],
    [
      'only what narrows: managed rules and hooks only, logins, servers refused',
      {
        $schema: 'https://json.schemastore.org/claude-code-settings.json',
        allowManagedHooksOnly: true,
        allowManagedPermissionRulesOnly: true,
        forceLoginMethod: 'console',
        deniedMcpServers: [{ serverName: 'x' }],
        companyAnnouncements: ['hello'],
        model: 'sonnet',
      },
      [],
    ],
    ['a rule that allows', { permissions: { allow: ['Bash'] } }, ['permissions.allow']],
    [
      'a mode that accepts edits, and more folders',
      { permissions: { defaultMode: 'acceptEdits', additionalDirectories: ['/'] } },
      ['permissions.defaultMode', 'permissions.additionalDirectories'],
    ],
    ['hooks', { hooks: { Stop: [] } }, ['hooks']],
    [
      'a sandbox that allows Bash itself',
      { sandbox: { autoAllowBashIfSandboxed: true } },
      ['sandbox'],
    ],
    ['a helper command', { apiKeyHelper: '/bin/key' }, ['apiKeyHelper']],
    ['a status line command', { statusLine: { type: 'command', command: 'x' } }, ['statusLine']],
    ['environment for its commands', { env: { BASH_ENV: '/x' } }, ['env']],
    ['plugins', { enabledPlugins: { 'a@b': true } }, ['enabledPlugins']],
    ['a setting this list does not know', { somethingNew: 1 }, ['somethingNew']],
    ['permissions that are not an object', { permissions: ['allow'] }, ['permissions']],
    ['a file that is not an object', ['hooks'], ['not an object']],
    ['null', null, ['not an object']],
  ]

  it.each(table)('%s', (_label, settings, found) => {
    expect(managedSettingsAllowances(settings)).toEqual(found)
  })
})

describe("Claude's managed settings files", () => {
  it('reads managed-settings.json and each JSON file in managed-settings.d', () => {
    const main = write(
      'managed-settings.json',
      JSON.stringify({ permissions: { allow: ['Bash'] } }),
    )
    const dropIn = write('managed-settings.d/10-hooks.json', JSON.stringify({ hooks: {} }))
    write('managed-settings.d/20-deny.json', JSON.stringify({ permissions: { deny: ['Bash'] } }))
    write('managed-settings.d/README.md', 'not settings')
    expect(claudeManagedAllowances(folder)).toEqual([
      `${main} (permissions.allow)`,
      `${dropIn} (hooks)`,
    ])
  })

  it('counts a file that is not JSON, or cannot be read, whole', () => {
    const broken = write('managed-settings.json', '{ "permissions": ')
    const loop = join(folder, 'managed-settings.d', 'loop.json')
    mkdirSync(dirname(loop), { recursive: true })
    symlinkSync(loop, loop)
    expect(claudeManagedAllowances(folder)).toEqual([`${broken} (not JSON)`, loop])
  })

  it('finds nothing where there is no folder, or no file', () => {
    expect(claudeManagedAllowances(join(folder, 'none'))).toEqual([])
    expect(claudeManagedAllowances(folder)).toEqual([])
  })

  it('knows where Claude reads them on each platform', () => {
    expect(claudeManagedFolder('linux')).toBe('/etc/claude-code')
    expect(claudeManagedFolder('darwin')).toBe('/Library/Application Support/ClaudeCode')
    expect(claudeManagedFolder('win32')).toBe('C:\\Program Files\\ClaudeCode')
  })

  it('refuses an asking room, naming each setting and who can move it, and lets full access start', () => {
    const file = write('managed-settings.json', JSON.stringify({ hooks: {} }))
    for (const mode of ['ask-for-approval', 'approve-for-me', 'plan'] as const) {
      expect(() => refuseClaudeManagedSettings(mode, folder)).toThrow(
        `Claude's managed settings would let it act without asking Assent: ${file} (hooks). Claude reads them for every session on this machine, whatever a session turns off; whoever manages ${folder} can move them aside`,
      )
    }
    expect(() => refuseClaudeManagedSettings('full-access', folder)).not.toThrow()
    write('managed-settings.json', JSON.stringify({ permissions: { deny: ['Bash'] } }))
    expect(() => refuseClaudeManagedSettings('plan', folder)).not.toThrow()
  })
})
