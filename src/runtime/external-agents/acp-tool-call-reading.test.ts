import { describe, expect, it } from 'vitest'
import { quotedCommandLine } from '../../contracts/shell-quoting.ts'
import type { AcpToolCall } from './acp-messages.ts'
import { acpAction } from './acp-tool-call-reading.ts'
import { actionOf } from './test-support/acp-action.ts'

// A command, or the agent's own tool; file changes are read in
// acp-tool-call-files.test.ts.
describe('ACP tool calls as Assent actions', () => {
  it('reads an argument vector as a command line, in its own or the session’s directory', () => {
    const argv = ['/bin/bash', '-lc', "echo 'hi' > out.txt"]
    expect(
      actionOf(
        { toolCallId: 't', kind: 'execute', rawInput: { command: argv, cwd: '/w/sub' } },
        '/w',
      ),
    ).toEqual({
      kind: 'command',
      commandLine: `/bin/bash -lc 'echo '\\''hi'\\'' > out.txt'`,
      argv,
      cwd: '/w/sub',
    })
  })

  it.each([
    [{ command: 'cp', args: ['x', '.git/hooks/pre-commit'] }, ['cp', 'x', '.git/hooks/pre-commit']],
    [{ command: ['bash', '-c'], args: ['--', 'cp x y'] }, ['bash', '-c', '--', 'cp x y']],
    [{ command: 'ls', args: [] }, null],
    [{ command: 'ls' }, null],
    [{ command: 'ls', args: null }, null],
  ])('keeps the args beside a command in the command it reads: %j', (rawInput, argv) => {
    expect(actionOf({ toolCallId: 't', kind: 'execute', rawInput }, '/w')).toEqual({
      kind: 'command',
      commandLine: argv === null ? 'ls' : quotedCommandLine(argv),
      argv,
      cwd: '/w',
    })
  })

  it.each([
    { command: 'cp', args: ['x', 5] },
    { command: '', args: ['x'] },
    { command: 5, args: ['x'] },
  ])('reads a command that is not all words (%j) as the agent’s own tool, whole', (rawInput) => {
    expect(actionOf({ toolCallId: 't', kind: 'execute', rawInput }, '/w')).toMatchObject({
      kind: 'tool',
      input: rawInput,
    })
  })

  it('refuses a command whose folder is not an absolute path, and never shows it in another', () => {
    // The agent takes a relative folder from its own: Assent cannot know
    // which, and showing the session's would let a grant for the same line
    // there answer for `cp x post-merge` run in .git/hooks.
    for (const cwd of ['.git/hooks', 'relative', '', './', 5, ['/w'], { path: '/w' }]) {
      expect(
        acpAction(
          { toolCallId: 't', kind: 'execute', rawInput: { command: 'cp x post-merge', cwd } },
          '/w',
        ),
      ).toMatchObject({ refused: 'command-folder-not-absolute' })
    }
    expect(
      acpAction(
        { toolCallId: 't', kind: 'execute', rawInput: { command: ['ls'], cwd: '.git/hooks' } },
        '/w',
      ),
    ).toEqual({
      refused: 'command-folder-not-absolute',
      detail: 'a command whose folder is ".git/hooks"',
    })
    // The detail names the folder, cut to 256 characters, or its type.
    const long = `${'d/'.repeat(200)}hooks`
    expect(
      acpAction({ toolCallId: 't', kind: 'execute', rawInput: { command: 'ls', cwd: long } }, '/w'),
    ).toEqual({
      refused: 'command-folder-not-absolute',
      detail: `a command whose folder is "${'d/'.repeat(128)}"`,
    })
    expect(
      acpAction({ toolCallId: 't', kind: 'execute', rawInput: { command: 'ls', cwd: 5 } }, '/w'),
    ).toEqual({
      refused: 'command-folder-not-absolute',
      detail: 'a command whose folder is a number',
    })
    // No folder at all (claude-agent-acp's Bash) is the session's.
    expect(
      actionOf({ toolCallId: 't', kind: 'execute', rawInput: { command: 'ls', cwd: null } }, '/w'),
    ).toEqual({ kind: 'command', commandLine: 'ls', argv: null, cwd: '/w' })
  })

  it('reads a command line without a directory (claude-agent-acp’s Bash) in the session’s', () => {
    expect(
      actionOf(
        {
          toolCallId: 't',
          kind: 'execute',
          title: 'echo hi > a.txt',
          rawInput: { command: 'echo hi > a.txt', description: 'Write a file' },
        },
        '/w',
      ),
    ).toEqual({ kind: 'command', commandLine: 'echo hi > a.txt', argv: null, cwd: '/w' })
  })

  it('shows anything else as the agent’s own title, kind and raw input', () => {
    expect(
      actionOf(
        { toolCallId: 't', kind: 'fetch', title: 'GET example', rawInput: { url: 'u' } },
        '/w',
      ),
    ).toEqual({
      kind: 'tool',
      toolKind: 'fetch',
      title: 'GET example',
      input: { url: 'u' },
      locations: [],
    })
    // Where the call acts, when only its locations say: absolute, shown.
    expect(
      actionOf(
        {
          toolCallId: 't',
          kind: 'edit',
          title: 'Edit',
          rawInput: {},
          locations: [{ path: '/w/.git/config', line: 3 }, { path: '/w/a.txt' }],
        },
        '/w',
      ),
    ).toMatchObject({ kind: 'tool', locations: ['/w/.git/config', '/w/a.txt'] })
    // An execute call without a readable command is not shown as one.
    expect(
      actionOf({ toolCallId: 't', kind: 'execute', title: 'run', rawInput: { command: [] } }, '/w'),
    ).toMatchObject({ kind: 'tool', toolKind: 'execute' })
  })

  it('refuses a call that names any place by a path that is not absolute, wherever it names it', () => {
    // claude-agent-acp's Write of `~/x` writes in its home folder; read
    // from the session's folder it would be shown as a new file there.
    const diff = (path: string) => ({ type: 'diff', path, newText: 'a' })
    const patch = (changes: Record<string, unknown>) => ({ changes })
    const calls: Array<Omit<AcpToolCall, 'toolCallId'>> = [
      { kind: 'edit', content: [diff('~/other-project/README.md')] },
      { kind: 'edit', content: [diff('/w/a.txt'), diff('notes.txt')] },
      { kind: 'read', locations: [{ path: '~' }] },
      { kind: 'edit', locations: [{ path: '/w/a.txt' }, { path: '../b.txt' }] },
      { kind: 'edit', rawInput: patch({ '~/x': { type: 'add' } }) },
      { kind: 'move', rawInput: patch({ '/w/a': { type: 'update', move_path: 'b' } }) },
      { kind: 'other', rawInput: { cwd: '~+' } },
      { kind: 'search', rawInput: { pattern: 'x', directory: '$HOME' } },
      { kind: 'execute', rawInput: { command: 'ls', run_in_background: true, workdir: 'sub' } },
    ]
    for (const call of calls) {
      expect(acpAction({ toolCallId: 't', ...call }, '/w'), JSON.stringify(call)).toMatchObject({
        refused: 'place-not-absolute',
      })
    }
    expect(acpAction({ toolCallId: 't', kind: 'edit', content: [diff('~/x')] }, '/w')).toEqual({
      refused: 'place-not-absolute',
      detail: 'a place named as "~/x"',
    })
    // The detail names the place, cut to 256 characters.
    expect(
      acpAction({ toolCallId: 't', kind: 'read', locations: [{ path: 'd/'.repeat(200) }] }, '/w'),
    ).toEqual({ refused: 'place-not-absolute', detail: `a place named as "${'d/'.repeat(128)}"` })
    // The same calls with absolute paths are read as what they do, and an
    // empty folder field names no place.
    expect(
      acpAction({ toolCallId: 't', kind: 'edit', content: [diff('/home/me/x')] }, '/w'),
    ).toMatchObject({ action: { kind: 'file-changes' } })
    expect(
      acpAction(
        { toolCallId: 't', kind: 'search', rawInput: { pattern: 'x', directory: '' } },
        '/w',
      ),
    ).toMatchObject({ action: { kind: 'tool', toolKind: 'search' } })
  })

  it('reads a command only from an execute call whose raw input has a readable one', () => {
    const tool = (call: Record<string, unknown>) => actionOf({ toolCallId: 't', ...call }, '/w')
    expect(tool({ kind: 'read', title: 'ls', rawInput: { command: 'ls' } })).toEqual({
      kind: 'tool',
      toolKind: 'read',
      title: 'ls',
      input: { command: 'ls' },
      locations: [],
    })
    expect(tool({ kind: 'execute', rawInput: 'ls' })).toMatchObject({ kind: 'tool', input: 'ls' })
    expect(tool({ kind: 'execute', rawInput: { command: '' } })).toMatchObject({ kind: 'tool' })
    expect(tool({ kind: 'execute', rawInput: { command: ['ls', 5] } })).toMatchObject({
      kind: 'tool',
    })
  })

  // What codex-acp's exec approval (Codex's `ExecApprovalRequestEvent`,
  // whole) or its report of a command it started (`ExecCommandBeginEvent`)
  // and claude-agent-acp's Bash send beside a command that says
  // nothing of what runs, where or for how long.
  const QUIET = {
    call_id: 'c',
    approval_id: 'a',
    turn_id: 't',
    started_at_ms: 1,
    reason: 'why',
    parsed_cmd: [{ type: 'unknown', cmd: 'ls' }],
    available_decisions: ['approved', 'abort'],
    proposed_execpolicy_amendment: ['ls'],
    source: 'agent',
    process_id: '42',
    description: 'List',
    timeout: 60_000,
  }

  it('reads a command beside fields that only describe it, and flags left unset', () => {
    for (const rawInput of [
      { command: ['ls'], cwd: '/w/sub', ...QUIET },
      { command: 'ls', run_in_background: false, dangerouslyDisableSandbox: null },
      { command: 'ls', workdir: undefined, additional_permissions: null },
    ]) {
      expect(actionOf({ toolCallId: 't', kind: 'execute', rawInput }, '/w')).toMatchObject({
        kind: 'command',
      })
    }
  })

  it.each([
    { run_in_background: true },
    { workdir: '/etc' },
    { directory: '/etc' },
    { dangerouslyDisableSandbox: true },
    { env: { LD_PRELOAD: '/tmp/x.so' } },
    { timeout_ms: 0 },
    { shell: '' },
  ])('shows a command beside anything else (%j) whole, as the agent’s own tool', (extra) => {
    const rawInput = { command: 'ls', description: 'List', ...extra }
    expect(actionOf({ toolCallId: 't', kind: 'execute', title: 'ls', rawInput }, '/w')).toEqual({
      kind: 'tool',
      toolKind: 'execute',
      title: 'ls',
      input: rawInput,
      locations: [],
    })
  })

  it('never reads a command shown whole as the file changes its diffs show', () => {
    // Every string of it is the file the diff adds: as file changes, a
    // grant for that file would answer a command that runs it.
    expect(
      actionOf(
        {
          toolCallId: 't',
          kind: 'execute',
          rawInput: { command: '/w/a.sh', workdir: '/w/a.sh' },
          content: [{ type: 'diff', path: '/w/a.sh', newText: 'x' }],
        },
        '/w',
      ),
    ).toMatchObject({ kind: 'tool', locations: ['/w/a.sh'] })
  })

  it.each([
    [
      'network_approval_context',
      { host: 'h', protocol: 'https' },
      'network-access',
      'a command that asks for network access',
    ],
    [
      'proposed_network_policy_amendments',
      [],
      'network-access',
      'a command that proposes network rules',
    ],
    [
      'additional_permissions',
      {},
      'extra-permissions',
      'a command that asks for extra permissions',
    ],
    [
      'sandbox_permissions',
      'require_escalated',
      'extra-permissions',
      'a command that asks for other sandbox permissions',
    ],
    ['permissions', false, 'unsupported-request', 'a request that widens the sandbox for the turn'],
  ])('refuses a call that carries %s, of any kind', (field, value, refused, detail) => {
    for (const call of [
      { kind: 'execute', rawInput: { command: ['ls'], cwd: '/w', [field]: value } },
      { kind: 'read', rawInput: { command: 'cat x', [field]: value } },
      { rawInput: { call_id: 'p', [field]: value } },
    ]) {
      expect(acpAction({ toolCallId: 't', ...call }, '/w')).toEqual({
        refused,
        detail: `${detail} (${field})`,
      })
    }
  })

  it('refuses nothing for a raw input that is no object of fields', () => {
    for (const rawInput of [null, 'permissions', ['permissions']]) {
      expect(actionOf({ toolCallId: 't', kind: 'execute', rawInput }, '/w')).toMatchObject({
        kind: 'tool',
      })
    }
  })

  it('shows a call with nothing of its own as an untitled tool of kind other', () => {
    expect(actionOf({ toolCallId: 't' }, '/w')).toEqual({
      kind: 'tool',
      toolKind: 'other',
      title: '',
      input: null,
      locations: [],
    })
  })
})
