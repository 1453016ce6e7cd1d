// @vitest-environment happy-dom
import { cleanup, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Timeline } from '../../../contracts/room.ts'
import { workbenchApi } from '../gui/workbench-api.ts'
import {
  FakeGui,
  emptyTimeline,
  permissionsFixture,
  roomFixture,
  toolCallFixture,
} from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { RoomView } from './room-view.tsx'

afterEach(cleanup)

const message = (
  id: string,
  role: 'user' | 'agent' | 'system',
  text: string,
  createdAt: number,
) => ({
  id,
  roomId: 'room-1',
  turnId: 'turn-1',
  role,
  text,
  createdAt,
})

/** One finished turn: the person's message, the agent's reply, three tool
 *  calls (one ran, one exited non-zero, one was refused) and Assent's note. */
const finished: Timeline = {
  ...emptyTimeline('room-1'),
  turns: [
    {
      id: 'turn-1',
      roomId: 'room-1',
      clientRequestId: 'c1',
      text: 'run ls\nrun false\nwrite ../x.txt hi',
      attempt: 1,
      retryOf: null,
      workspace: '/home/ada/project',
      policy: permissionsFixture().policy,
      status: 'done',
      createdAt: 1_000,
    },
  ],
  messages: [
    message('m-system', 'system', 'One call was refused: it left the workspace.', 1_400),
    message('m-user', 'user', 'run ls\nrun false\nwrite ../x.txt hi', 1_000),
    message('m-agent', 'agent', 'Running ls.\nRunning false.\nWriting ../x.txt.', 1_100),
  ],
  toolCalls: [
    toolCallFixture({
      id: 'c-ls',
      seq: 0,
      toolName: 'run_command',
      arguments: { command: ['ls'] },
      status: 'succeeded',
      approvalId: null,
      result: { ok: true, output: 'notes.txt\nREADME.md', exitCode: 0 },
      createdAt: 1_200,
    }),
    toolCallFixture({
      id: 'c-false',
      seq: 1,
      toolName: 'run_command',
      arguments: { command: ['false'] },
      status: 'failed',
      approvalId: null,
      result: { ok: false, output: '', exitCode: 1, code: 'nonzero_exit' },
      createdAt: 1_250,
    }),
    toolCallFixture({
      id: 'c-write',
      seq: 2,
      arguments: { path: '../x.txt', content: 'hi' },
      status: 'refused',
      approvalId: null,
      result: {
        ok: false,
        output: 'path escapes the workspace: ../x.txt',
        code: 'outside_workspace',
      },
      createdAt: 1_300,
    }),
  ],
}

async function renderTimeline(lang: 'en' | 'zh-CN' = 'en') {
  const gui = new FakeGui()
  gui.timelines.set('room-1', finished)
  gui.permissionsOf.set('room-1', permissionsFixture())
  renderWithI18n(
    <RoomView api={workbenchApi(gui)} gui={gui} room={roomFixture()} newId={() => 'id'} />,
    lang,
  )
  await screen.findAllByTestId('timeline-tool')
}

const tool = (id: string) =>
  screen
    .getAllByTestId('timeline-tool')
    .find((element) => element.dataset.toolCallId === id) as HTMLElement

describe('TimelineView: messages and tool results', () => {
  it('shows who said what, in the order of the turn: the person, the agent, the tools, Assent', async () => {
    await renderTimeline()
    const messages = screen.getAllByTestId('timeline-message')
    expect(
      messages.map((element) => [
        element.querySelector('.message__author')?.textContent,
        element.querySelector('.message__text')?.textContent,
      ]),
    ).toEqual([
      ['You', 'run ls\nrun false\nwrite ../x.txt hi'],
      ['Agent', 'Running ls.\nRunning false.\nWriting ../x.txt.'],
      ['Assent', 'One call was refused: it left the workspace.'],
    ])
    expect(messages.map((element) => element.className)).toEqual([
      'message message--user',
      'message message--agent',
      'message message--system',
    ])
    const entries = [
      ...screen.getByTestId('timeline').querySelectorAll('[data-testid^="timeline-"]'),
    ].map(
      (element) => element.getAttribute('data-tool-call-id') ?? element.textContent?.slice(0, 3),
    )
    expect(entries).toEqual(['You', 'Age', 'c-ls', 'c-false', 'c-write', 'Ass'])
  })

  it('shows a finished call with its output and exit code, a failed one with its exit code, and a refused one with its reason', async () => {
    await renderTimeline()
    const ls = tool('c-ls')
    expect(ls.dataset.status).toBe('succeeded')
    expect(ls.querySelector('.tool__status')?.textContent).toBe('Succeeded')
    expect(ls.querySelector('.tool__result-label')?.textContent).toBe('Result · exit code 0')
    expect(within(ls).getByTestId('tool-output').textContent).toBe('notes.txt\nREADME.md')
    expect(ls.querySelector('.tool__arguments')?.textContent).toContain('"ls"')

    const failed = tool('c-false')
    expect(failed.querySelector('.tool__status')?.textContent).toBe('Failed')
    expect(failed.querySelector('.tool__result-label')?.textContent).toBe('Result · exit code 1')

    const refused = tool('c-write')
    expect(refused.dataset.status).toBe('refused')
    expect(refused.querySelector('.tool__status')?.textContent).toBe('Refused')
    expect(refused.querySelector('.tool__result-label')?.textContent).toBe('Result')
    expect(within(refused).getByTestId('tool-output').textContent).toBe(
      'path escapes the workspace: ../x.txt',
    )
  })

  it('labels authors, statuses and exit codes in Chinese', async () => {
    await renderTimeline('zh-CN')
    const authors = screen
      .getAllByTestId('timeline-message')
      .map((element) => element.querySelector('.message__author')?.textContent)
    expect(authors).toEqual(['你', '智能体', 'Assent'])
    expect(tool('c-ls').querySelector('.tool__result-label')?.textContent).toBe('结果 · 退出码 0')
    expect(tool('c-write').querySelector('.tool__status')?.textContent).toBe('已拒绝执行')
  })

  it("words what the runtime said in the person's language, its values drawn as code", async () => {
    const gui = new FakeGui()
    gui.timelines.set('room-1', {
      ...finished,
      messages: [
        {
          ...message('m-agent', 'agent', 'Writing notes.txt.', 1_100),
          message: {
            code: 'lines.joined',
            params: { lines: [{ code: 'offline.writing', params: { path: 'notes.txt' } }] },
          },
        },
        {
          ...message('m-future', 'agent', 'Said by a newer runtime.', 1_150),
          message: { code: 'offline.fromTheFuture' },
        },
      ],
      toolCalls: [
        toolCallFixture({
          id: 'c-write',
          arguments: { path: 'notes.txt', content: 'hi' },
          status: 'succeeded',
          approvalId: null,
          result: {
            ok: true,
            output: 'wrote 2 bytes to /w/notes.txt',
            message: { code: 'tool.wrote', params: { bytes: 2, path: '/w/notes.txt' } },
          },
        }),
      ],
    })
    gui.permissionsOf.set('room-1', permissionsFixture())
    renderWithI18n(
      <RoomView api={workbenchApi(gui)} gui={gui} room={roomFixture()} newId={() => 'id'} />,
      'zh-CN',
    )
    const said = await screen.findByTestId('tool-said')
    expect(said.textContent).toBe('已向 /w/notes.txt 写入 2 字节')
    expect(said.querySelector('code')?.textContent).toBe('/w/notes.txt')
    // A result in words needs no copy of its English underneath.
    expect(within(tool('c-write')).queryByTestId('tool-output')).toBeNull()
    const texts = screen
      .getAllByTestId('timeline-message')
      .map((element) => element.querySelector('.message__text')?.textContent)
    // An unknown code (a newer runtime): the English it came with.
    expect(texts).toEqual(['正在写入 notes.txt。', 'Said by a newer runtime.'])
  })
})
