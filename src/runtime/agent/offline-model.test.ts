import { catalogs } from '../../common/i18n/index.ts'
import { messageText, templateIn } from '../../contracts/runtime-message.ts'
import { describe, expect, it } from 'vitest'
import type { AgentContext } from './agent-model.ts'
import { OFFLINE_MODEL_HELP, OfflineModel } from './offline-model.ts'

const model = new OfflineModel()
const calls = (text: string) => model.plan(text).toolCalls

describe('offline model grammar', () => {
  it('turns write into write_file with the rest of the line as content', () => {
    expect(calls('write notes.txt hello  world')).toEqual([
      { tool: 'write_file', arguments: { path: 'notes.txt', content: 'hello  world' } },
    ])
  })

  it('keeps quotes in written text and allows empty content', () => {
    expect(calls('write a.txt "quoted" it\'s')).toEqual([
      { tool: 'write_file', arguments: { path: 'a.txt', content: '"quoted" it\'s' } },
    ])
    expect(calls('write empty.txt')).toEqual([
      { tool: 'write_file', arguments: { path: 'empty.txt', content: '' } },
    ])
  })

  it('accepts a quoted path with spaces', () => {
    expect(calls('write "my notes.txt" hi')).toEqual([
      { tool: 'write_file', arguments: { path: 'my notes.txt', content: 'hi' } },
    ])
    expect(calls("read 'my notes.txt'")).toEqual([
      { tool: 'read_file', arguments: { path: 'my notes.txt' } },
    ])
  })

  it('turns read into read_file', () => {
    expect(calls('read src/a.ts')).toEqual([{ tool: 'read_file', arguments: { path: 'src/a.ts' } }])
  })

  it('turns delete into a plain delete_file', () => {
    expect(calls('delete old.txt')).toEqual([
      { tool: 'delete_file', arguments: { path: 'old.txt' } },
    ])
  })

  it('turns delete -r into a recursive delete_file', () => {
    expect(calls('delete -r build')).toEqual([
      { tool: 'delete_file', arguments: { path: 'build', recursive: true } },
    ])
  })

  it('lists "." when list has no path', () => {
    expect(calls('list')).toEqual([{ tool: 'list_dir', arguments: { path: '.' } }])
    expect(calls('list src')).toEqual([{ tool: 'list_dir', arguments: { path: 'src' } }])
  })

  it('splits run on whitespace, honouring quotes, with no shell', () => {
    expect(calls(`run git commit -m "first commit" --author 'A B <a@b>'`)).toEqual([
      {
        tool: 'run_command',
        arguments: { argv: ['git', 'commit', '-m', 'first commit', '--author', 'A B <a@b>'] },
      },
    ])
    expect(calls('run echo $HOME')).toEqual([
      { tool: 'run_command', arguments: { argv: ['echo', '$HOME'] } },
    ])
  })

  it('keeps an empty quoted argument to run', () => {
    expect(calls('run printf ""')).toEqual([
      { tool: 'run_command', arguments: { argv: ['printf', ''] } },
    ])
  })

  it('turns mcp into a namespaced MCP tool call with its JSON object', () => {
    expect(calls('mcp notes write_note {"name": "a.txt", "text": "hi there"}')).toEqual([
      { tool: 'notes__write_note', arguments: { name: 'a.txt', text: 'hi there' } },
    ])
  })

  it('refuses an mcp line without a JSON object, or with a server id that has underscores', () => {
    for (const line of [
      'mcp notes write_note',
      'mcp notes write_note [1, 2]',
      'mcp notes write_note {not json}',
      'mcp my_server write_note {}',
      'mcp notes {}',
    ]) {
      expect(calls(line), line).toEqual([])
    }
  })

  it('makes one call per line, in order, skipping blank lines', () => {
    const plan = model.plan('write a.txt 1\n\r\nread a.txt\r\nrun ls -la\n')
    expect(plan.toolCalls.map((c) => c.tool)).toEqual(['write_file', 'read_file', 'run_command'])
    expect(plan.reply.split('\n')).toHaveLength(3)
  })

  it('accepts verbs in any case', () => {
    expect(calls('READ a.txt')).toEqual([{ tool: 'read_file', arguments: { path: 'a.txt' } }])
  })

  it('says what it will do in the reply', () => {
    expect(model.plan('delete -r build').reply).toBe('Deleting build and everything in it.')
  })
})

describe('offline model refusals', () => {
  it.each([
    ['free text', 'please tidy up my home directory'],
    ['an empty message', '   \n  '],
    ['read without a path', 'read'],
    ['read with two paths', 'read a b'],
    ['delete without a path', 'delete -r'],
    ['delete with two paths', 'delete a b'],
    ['list with two paths', 'list a b'],
    ['run without a command', 'run'],
    ['run with an empty program name', 'run "" x'],
    ['write without a path', 'write'],
    ['write with an empty path', 'write "" text'],
    ['an unterminated quote', 'read "a.txt'],
    ['a quoted verb', '"read" a.txt'],
  ])('explains the grammar and calls nothing for %s', (_name, text) => {
    const plan = model.plan(text)
    expect(plan.toolCalls).toEqual([])
    expect(plan.reply).toContain(OFFLINE_MODEL_HELP)
  })

  it('calls nothing at all when one line of several does not fit', () => {
    const plan = model.plan('write a.txt ok\nmake me a sandwich\nread a.txt')
    expect(plan.toolCalls).toEqual([])
    expect(plan.reply).toContain('line 2')
  })

  it('answers the same message the same way every time', () => {
    const text = 'write a.txt x\nrun ls'
    expect(new OfflineModel().plan(text)).toEqual(model.plan(text))
  })
})

describe('offline model questions and forms', () => {
  const steps = (text: string) => model.plan(text).steps

  it('groups consecutive ask lines into one request with options and explanations', () => {
    expect(
      steps('ask Env | Where? | staging = safe | prod\nask --secret Token | Paste it\nlist'),
    ).toEqual([
      {
        type: 'questions',
        blocking: false,
        questions: [
          {
            id: 'q1',
            title: 'Env',
            text: 'Where?',
            options: [{ label: 'staging', explanation: 'safe' }, { label: 'prod' }],
            secret: false,
          },
          { id: 'q2', title: 'Token', text: 'Paste it', options: [], secret: true },
        ],
      },
      { type: 'tool', call: { tool: 'list_dir', arguments: { path: '.' } } },
    ])
  })

  it('makes the whole request blocking when one question is', () => {
    const [step] = steps('ask A | a?\nask --blocking B | b?')
    expect(step).toMatchObject({ type: 'questions', blocking: true })
  })

  it('reads a form with or without a schema, and refuses a schema outside the subset', () => {
    expect(steps('form Tell me more')).toEqual([
      { type: 'form', form: { message: 'Tell me more' } },
    ])
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }
    expect(steps(`form Pick :: ${JSON.stringify(schema)}`)).toEqual([
      { type: 'form', form: { message: 'Pick', requestedSchema: schema } },
    ])
    expect(steps('form Pick :: {"type":"object","properties":{"x":{"type":"object"}}}')).toEqual([])
    expect(steps('ask OnlyTitle')).toEqual([])
    expect(model.plan('ask OnlyTitle').reply).toContain('did not understand line 1')
  })
})

describe('offline model steps', () => {
  const context = (userText: string, outcomes: AgentContext['outcomes'] = []): AgentContext => ({
    history: [],
    userText,
    tools: [],
    outcomes,
  })

  it('acts on the whole message first, saying what it does', async () => {
    expect(await model.next(context('write a.txt hi'))).toEqual({
      type: 'act',
      say: 'Writing a.txt.',
      sayMessage: {
        code: 'lines.joined',
        params: { lines: [{ code: 'offline.writing', params: { path: 'a.txt' } }] },
      },
      actions: [
        { type: 'tool', call: { tool: 'write_file', arguments: { path: 'a.txt', content: 'hi' } } },
      ],
    })
  })

  it('replies with the grammar, and acts on nothing, when the message does not fit', async () => {
    const step = await model.next(context('make me a sandwich'))
    expect(step).toMatchObject({ type: 'reply', text: expect.stringContaining(OFFLINE_MODEL_HELP) })
  })

  it('then reports each tool call: done, refused and why, denied, expired', async () => {
    const call = (path: string) => ({ tool: 'write_file', arguments: { path, content: '' } })
    const step = await model.next(
      context('…', [
        {
          type: 'tool',
          call: call('a.txt'),
          status: 'succeeded',
          result: { ok: true, output: 'wrote 0 bytes to /w/a.txt' },
        },
        {
          type: 'tool',
          call: call('/etc/x'),
          status: 'refused',
          result: { ok: false, output: '/etc/x is outside /w', code: 'outside_workspace' },
        },
        { type: 'questions', reply: 'Thanks.' },
        {
          type: 'tool',
          call: call('b.txt'),
          status: 'denied',
          result: {
            ok: false,
            output: 'Denied by the person; it did not run.',
            code: 'approval_denied',
          },
        },
        {
          type: 'tool',
          call: call('c.txt'),
          status: 'expired',
          result: { ok: false, output: 'x', code: 'approval_expired' },
        },
      ]),
    )
    expect(step).toMatchObject({
      type: 'reply',
      text: [
        'What happened:',
        'write_file a.txt: done: wrote 0 bytes to /w/a.txt',
        'write_file /etc/x: refused, it did not run: /etc/x is outside /w',
        'write_file b.txt: Denied by the person; it did not run.',
        'write_file c.txt: nobody decided in time, so it did not run.',
      ].join('\n'),
    })
  })

  it('reports in words the person reads in their language, with the tool’s own words where it has them', async () => {
    const said = { code: 'tool.wrote', params: { bytes: 0, path: '/w/a.txt' } }
    const step = await model.next(
      context('…', [
        {
          type: 'tool',
          call: { tool: 'write_file', arguments: { path: 'a.txt', content: '' } },
          status: 'succeeded',
          result: { ok: true, output: 'wrote 0 bytes to /w/a.txt', message: said },
        },
        {
          type: 'tool',
          call: { tool: 'run_command', arguments: { argv: ['git', 'log'] } },
          status: 'succeeded',
          result: { ok: true, output: 'commit abc\nAuthor: x', exitCode: 0 },
        },
      ]),
    )
    const report = step.type === 'reply' ? step.message : undefined
    expect(report).toEqual({
      code: 'offline.report',
      params: {
        lines: [
          {
            code: 'offline.doneWith',
            params: {
              what: { code: 'offline.callPath', params: { tool: 'write_file', path: 'a.txt' } },
              output: said,
            },
          },
          {
            code: 'offline.doneWith',
            params: {
              what: { code: 'offline.callRun', params: { command: 'git log' } },
              // Data, not words: the first line of the output, shown as it is.
              output: 'commit abc',
            },
          },
        ],
      },
    })
    expect(messageText(report!, (code) => templateIn(catalogs['zh-CN'].runtime, code))).toBe(
      '结果如下：\nwrite_file a.txt：已完成：已向 /w/a.txt 写入 0 字节\n运行 git log：已完成：commit abc',
    )
  })

  it('reports each permission request, granted, refused, denied or expired, in both languages', async () => {
    const write = { widen: { type: 'write-directory' as const, path: '/home/ada/out' }, reason: '' }
    const refusedWords = { code: 'permission.alreadyWritable', params: { path: '/home/ada/out' } }
    const step = await model.next(
      context('…', [
        {
          type: 'permissions',
          request: write,
          status: 'succeeded',
          result: { ok: true, output: 'granted' },
        },
        {
          type: 'permissions',
          request: write,
          status: 'refused',
          result: {
            ok: false,
            output: '/home/ada/out is already writable in this turn.',
            code: 'already_allowed',
            message: refusedWords,
          },
        },
        {
          type: 'permissions',
          request: { widen: { type: 'network', argv: ['npm', 'ci'] }, reason: '' },
          status: 'denied',
          result: {
            ok: false,
            output: 'Denied by the person; nothing widened.',
            code: 'approval_denied',
            message: { code: 'permission.deniedByPerson' },
          },
        },
        {
          type: 'permissions',
          request: write,
          status: 'expired',
          result: { ok: false, output: 'x', code: 'approval_expired' },
        },
      ]),
    )
    expect(step).toMatchObject({
      type: 'reply',
      text: [
        'What happened:',
        'write access to /home/ada/out: granted for this turn.',
        'write access to /home/ada/out: refused without asking: /home/ada/out is already writable in this turn.',
        'network access for npm ci: Denied by the person; nothing widened.',
        'write access to /home/ada/out: nobody decided in time, so nothing widened.',
      ].join('\n'),
    })
    const report = step.type === 'reply' ? step.message : undefined
    expect(messageText(report!, (code) => templateIn(catalogs['zh-CN'].runtime, code))).toBe(
      [
        '结果如下：',
        '对 /home/ada/out 的写入权限：已在本轮中授予。',
        '对 /home/ada/out 的写入权限：未经询问即被拒绝：/home/ada/out 在本轮中已经可写。',
        'npm ci 的网络访问权限：你已拒绝；没有放宽任何权限。',
        '对 /home/ada/out 的写入权限：没有人及时决定，所以没有放宽任何权限。',
      ].join('\n'),
    )
  })

  it('has nothing more to say after only questions or forms', async () => {
    expect(
      await model.next(context('ask A | a?', [{ type: 'questions', reply: 'Thanks.' }])),
    ).toEqual({
      type: 'reply',
      text: '',
    })
  })
})
