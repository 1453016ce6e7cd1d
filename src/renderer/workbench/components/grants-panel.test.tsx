// @vitest-environment happy-dom
import { cleanup, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Language } from '../../../common/consent-view.ts'
import type { Grant } from '../../../contracts/room.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { GrantsPanel } from './grants-panel.tsx'

afterEach(cleanup)

const grant = (overrides: Partial<Grant>): Grant => ({
  id: 'g1',
  roomId: 'room-1',
  toolName: 'write_file',
  command: null,
  approvalId: 'ap-1',
  createdAt: 1,
  ...overrides,
})

/** The one grant's row: what it shows and what its revoke button is called. */
function renderGrant(shown: Grant, lang: Language = 'en') {
  renderWithI18n(
    <GrantsPanel grants={[shown]} onRevoke={async () => {}} onRevokeServer={async () => {}} />,
    lang,
  )
  const row = screen.getByTestId('grant')
  return {
    row,
    what: within(row).getByTestId('grant-what').textContent,
    label: within(row).getByTestId('grant-revoke').getAttribute('aria-label'),
    code: row.querySelector('code')?.textContent,
  }
}

describe('the grants panel says what each grant covers', () => {
  it('a command grant: the exact command line', () => {
    const { row, what, label, code } = renderGrant(
      grant({ scope: 'command', toolName: 'run_command', command: ['npm', 'run', 'lint'] }),
    )
    expect(row.dataset.scope).toBe('command')
    expect(code).toBe('npm run lint')
    expect(what).toBe('run_commandnpm run lint')
    expect(label).toBe('Revoke "always allow" for npm run lint')
  })

  it('a path grant: the tool and the one real path', () => {
    const { row, what, label, code } = renderGrant(
      grant({ scope: 'path', toolName: 'delete_file', path: '/home/ada/project/old.txt' }),
    )
    expect(row.dataset.scope).toBe('path')
    expect(code).toBe('/home/ada/project/old.txt')
    expect(what).toBe('delete_file/home/ada/project/old.txt')
    expect(label).toBe('Revoke "always allow" for delete_file: /home/ada/project/old.txt')
  })

  it("a tool grant: any call of the tool, inside the room's sandbox", () => {
    const { row, what, label, code } = renderGrant(grant({ scope: 'tool' }))
    expect(row.dataset.scope).toBe('tool')
    expect(code).toBeUndefined()
    expect(what).toBe('write_fileany call, inside this room’s sandbox; sensitive files still ask')
    expect(row.querySelector('.grants__scope')).not.toBeNull()
    expect(label).toBe('Revoke "always allow" for any write_file call')
  })

  it('an MCP grant: the server and the tool', () => {
    const { row, what, label, code } = renderGrant(
      grant({
        scope: 'mcp',
        toolName: 'write_note',
        mcp: { serverId: 'notes', definitionHash: 'c'.repeat(64) },
      }),
    )
    expect(row.dataset.scope).toBe('mcp')
    expect(code).toBeUndefined()
    expect(what).toBe('notes: write_note')
    expect(label).toBe('Revoke "always allow" for notes: write_note')
    expect(screen.getByTestId('grant-revoke-server').textContent).toBe('Revoke all for notes')
  })

  it("assent-gateway's grants: a prompt's names the prompt it answers for, a read's says it answers every read of the server", () => {
    const rows: Array<[Grant, string, string]> = [
      [
        grant({
          scope: 'mcp',
          toolName: 'prompts/get',
          mcp: { serverId: 'notes', definitionHash: 'c'.repeat(64), prompt: 'summarise' },
        }),
        'notes: prompts/get summarisethis prompt only, with any arguments; the server’s other prompts ask',
        'Revoke "always allow" for notes: prompts/get summarise',
      ],
      [
        grant({
          scope: 'mcp',
          toolName: 'resources/read',
          mcp: { serverId: 'notes', definitionHash: 'c'.repeat(64) },
        }),
        'notes: resources/readany resource of the server, not only the one shown; places outside the workspace still ask',
        'Revoke "always allow" for notes: resources/read',
      ],
    ]
    for (const [shown, expectedWhat, expectedLabel] of rows) {
      const { row, what, label } = renderGrant(shown)
      expect(row.dataset.scope).toBe('mcp')
      expect(what).toBe(expectedWhat)
      expect(label).toBe(expectedLabel)
      cleanup()
    }
  })

  it('a server-wide MCP grant: every tool of the server, while its tool list stays as it was', () => {
    const { row, what, label } = renderGrant(
      grant({
        scope: 'mcp-server',
        toolName: 'write_note',
        mcp: {
          serverId: 'notes',
          definitionHash: 'c'.repeat(64),
          toolListHash: 'd'.repeat(64),
        },
      }),
    )
    expect(row.dataset.scope).toBe('mcp-server')
    expect(what).toBe(
      'every tool of noteswhile the server offers exactly the tools it offered then; any change asks again',
    )
    expect(label).toBe('Revoke "always allow" for every tool of notes')
    expect(screen.getByTestId('grant-revoke-server').textContent).toBe('Revoke all for notes')
  })

  it('a grant stored before scopes: its exact command, never "any call"', () => {
    const { row, what } = renderGrant(grant({ toolName: 'run_command', command: ['npm', 'test'] }))
    expect(row.dataset.scope).toBe('command')
    expect(what).toBe('run_commandnpm test')
  })

  it('a grant that names nothing the runtime can match: the bare tool, still revocable', () => {
    for (const shown of [grant({ scope: 'path' }), grant({})]) {
      const { row, what, label } = renderGrant(shown)
      expect(row.dataset.scope).toBe('unscoped')
      expect(what).toBe('write_file')
      expect(label).toBe('Revoke "always allow" for write_file')
      cleanup()
    }
  })

  it('speaks Chinese with the zh-CN catalog', () => {
    const { what, label } = renderGrant(grant({ scope: 'tool' }), 'zh-CN')
    expect(what).toBe('write_file此房间沙箱内的任何调用；敏感文件仍会询问')
    expect(label).toBe('撤销对 任何 write_file 调用 的“始终允许”')
  })
})
