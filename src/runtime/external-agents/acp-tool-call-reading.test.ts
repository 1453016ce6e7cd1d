import { describe, expect, it } from 'vitest'
import { quotedCommandLine } from '../../contracts/shell-quoting.ts'
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
          locations: [{ path: '.git/config', line: 3 }, { path: '/w/a.txt' }],
        },
        '/w',
      ),
    ).toMatchObject({ kind: 'tool', locations: ['/w/.git/config', '/w/a.txt'] })
    // An execute call without a readable command is not shown as one.
    expect(
      actionOf({ toolCallId: 't', kind: 'execute', title: 'run', rawInput: { command: [] } }, '/w'),
    ).toMatchObject({ kind: 'tool', toolKind: 'execute' })
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
