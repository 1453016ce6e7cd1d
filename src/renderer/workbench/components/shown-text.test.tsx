// @vitest-environment happy-dom
import { cleanup, screen, within } from '@testing-library/react'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { displaySafe } from '../../../common/display-safe-text.ts'
import { approvalFixture, questionRequestFixture } from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { ApprovalCard } from './approval-card.tsx'
import { FormCard } from './form-card.tsx'
import { GrantsPanel } from './grants-panel.tsx'
import { QuestionCard } from './question-card.tsx'
import { RuntimeText } from './runtime-text.tsx'
import { PLAIN_LINE, PLAIN_TEXT } from './shown-text.tsx'

// What the workbench shows of an agent's or a server's words reads as the
// protected window will show it: a character that reorders or hides text
// is drawn by its code, a name that passes for another is marked. Before,
// the card drew `notes.txt` with a right-to-left override as `txt.seton`
// would read, and a zero-width space not at all.

afterEach(cleanup)

const RLO = '\u202e'
const ZWSP = '\u200b'

/** The escapes drawn in `element`, by their labels. */
function escapesIn(element: HTMLElement): string[] {
  return [...element.querySelectorAll('.shown-escape')].map((span) => span.textContent ?? '')
}

describe('the workbench draws what it is sent as the window does', () => {
  it("on an approval's card: arguments, description, server, folder, tool and directory", () => {
    const approval = approvalFixture({
      kind: 'mcp-tool-call',
      toolName: `write${ZWSP}_note`,
      workingDirectory: `/srv/${RLO}txt.seton`,
      mcp: {
        serverId: 'notes',
        serverName: 'Nоtes', // a Cyrillic о
        toolDescription: `Writes a note.${RLO} Deletes nothing.`,
        inputSchemaHash: 'a'.repeat(64),
        definitionHash: 'b'.repeat(64),
        preview: null,
        serverFolder: `/srv/${ZWSP}notes`,
      },
    })
    renderWithI18n(
      <ApprovalCard
        card={{ approval, stale: false }}
        args={{ path: `plan${RLO}txt.exe` }}
        onReview={vi.fn()}
      />,
    )
    const card = screen.getByTestId('approval-card')
    expect(escapesIn(within(card).getByTestId('approval-arguments'))).toEqual(['⟨U+202E⟩'])
    expect(escapesIn(within(card).getByTestId('approval-mcp-description'))).toEqual(['⟨U+202E⟩'])
    expect(escapesIn(within(card).getByTestId('approval-mcp-server-folder'))).toEqual(['⟨U+200B⟩'])
    expect(escapesIn(within(card).getByTestId('approval-mcp-server'))).toEqual(['⟨U+043E⟩'])
    const text = card.textContent ?? ''
    expect(text).not.toContain(RLO)
    expect(text).not.toContain(ZWSP)
    expect(text).toContain(`write⟨U+200B⟩_note`)
    expect(text).toContain('/srv/⟨U+202E⟩txt.seton')
  })

  it("in a runtime message's values", () => {
    renderWithI18n(
      <RuntimeText
        message={{ code: 'summary.delete', params: { path: `a${RLO}b` } }}
        english="Delete a b"
      />,
    )
    expect(document.body.textContent).not.toContain(RLO)
    expect(escapesIn(document.body)).toEqual(['⟨U+202E⟩'])
  })

  it("in a form's message, its fields and a question's words", () => {
    renderWithI18n(
      <FormCard
        card={{
          stale: false,
          request: questionRequestFixture({
            kind: 'form',
            questions: [],
            blocking: true,
            form: {
              message: `Sign in again${RLO}`,
              requestedSchema: {
                type: 'object',
                properties: {
                  token: { type: 'string', title: `Tоken${ZWSP}`, description: `Paste it${ZWSP}` },
                },
              },
            },
          }),
        }}
        onRespond={vi.fn(async () => undefined)}
      />,
    )
    const form = document.body
    expect(form.textContent).not.toContain(RLO)
    expect(form.textContent).not.toContain(ZWSP)
    // The message twice: the card's title line and its body.
    expect(escapesIn(form)).toEqual(['⟨U+202E⟩', '⟨U+202E⟩', '⟨U+200B⟩', '⟨U+200B⟩'])
    expect(form.querySelectorAll('.shown-lookalike')).toHaveLength(1)
    cleanup()
    const request = questionRequestFixture()
    const question = { ...request.questions[0]!, title: `Deploy${RLO}`, text: `Where${ZWSP}?` }
    renderWithI18n(
      <QuestionCard
        card={{ stale: false, request: { ...request, questions: [question] } }}
        onSend={vi.fn(async () => undefined)}
        onDismiss={vi.fn(async () => undefined)}
        onKeepWaiting={vi.fn(async () => undefined)}
      />,
    )
    const asked = screen.getByTestId('question-card')
    expect(asked.textContent).not.toContain(RLO)
    expect(asked.textContent).not.toContain(ZWSP)
    // The title twice: the card's title line and the question's legend.
    expect(escapesIn(asked)).toEqual(['⟨U+202E⟩', '⟨U+202E⟩', '⟨U+200B⟩'])
  })

  it("in the grants panel: a command's line and a path", () => {
    const at = { roomId: 'room-1', approvalId: 'ap-1', createdAt: 1 }
    renderWithI18n(
      <GrantsPanel
        grants={[
          {
            ...at,
            id: 'g1',
            scope: 'command',
            toolName: 'run_command',
            command: ['rm', `x${RLO}`],
          },
          {
            ...at,
            id: 'g2',
            scope: 'path',
            toolName: 'delete_file',
            command: null,
            path: `/p/${ZWSP}a`,
          },
        ]}
        onRevoke={async () => {}}
        onRevokeServer={async () => {}}
      />,
    )
    const rows = screen.getAllByTestId('grant-what')
    expect(rows.map((row) => escapesIn(row))).toEqual([['⟨U+202E⟩'], ['⟨U+200B⟩']])
  })
})

describe('text drawn as it is, without reading it character by character', () => {
  const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i))
  it.each([
    ['a one-line value', PLAIN_LINE, ascii, false],
    ['text with lines', PLAIN_TEXT, [...ascii, '\n', '\t'], true],
  ] as const)('is what displaySafe leaves plain: %s', (_name, plain, units, multiline) => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...units), maxLength: 80 }),
        fc.boolean(),
        (text, name) => {
          expect(plain.test(text)).toBe(true)
          const safe = displaySafe(text, { multiline, name })
          expect(safe.warnings.size).toBe(0)
          expect(safe.mixedDirection).toBe(false)
          expect(
            safe.segments
              .map((segment) =>
                segment.kind === 'text' && !segment.lookalike ? segment.text : null,
              )
              .join(''),
          ).toBe(text)
          expect(
            safe.segments.every((segment) => segment.kind === 'text' && segment.lookalike !== true),
          ).toBe(true)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('is not a line feed, a tab or a carriage return in a one-line value, nor anything past ASCII', () => {
    for (const text of ['a\nb', 'a\tb', 'a\rb', 'a\u00a0b', 'é'])
      expect(PLAIN_LINE.test(text)).toBe(false)
    for (const text of ['a\rb', 'a\u200bb', '\u007f']) expect(PLAIN_TEXT.test(text)).toBe(false)
  })
})
