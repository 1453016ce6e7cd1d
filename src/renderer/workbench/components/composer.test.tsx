// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { renderWithI18n } from '../test-support/render.tsx'
import { Composer } from './composer.tsx'

afterEach(cleanup)

function renderComposer(onSend = vi.fn(async (_text: string) => {})) {
  renderWithI18n(<Composer onSend={onSend} />)
  const input = screen.getByTestId('composer-input') as HTMLTextAreaElement
  const type = (text: string) => fireEvent.change(input, { target: { value: text } })
  return { onSend, input, type }
}

describe('Composer', () => {
  it('sends the trimmed text on Enter and empties the box', async () => {
    const { onSend, input, type } = renderComposer()
    type('  write notes.txt hello \n')
    fireEvent.keyDown(input, { key: 'Enter' })
    await waitFor(() => expect(onSend).toHaveBeenCalledWith('write notes.txt hello'))
    await waitFor(() => expect(input.value).toBe(''))
  })

  it('adds a line on Shift+Enter and sends nothing', () => {
    const { onSend, input, type } = renderComposer()
    type('read a.txt')
    fireEvent.keyDown(input, { key: 'Enter', shiftKey: true })
    expect(onSend).not.toHaveBeenCalled()
  })

  it('sends nothing on the Enter that confirms an input-method composition', () => {
    const { onSend, input, type } = renderComposer()
    type('写')
    fireEvent.keyDown(input, { key: 'Enter', isComposing: true })
    fireEvent.keyDown(input, { key: 'Enter', keyCode: 229 })
    expect(onSend).not.toHaveBeenCalled()
  })

  it('sends nothing when the box is empty or blank', () => {
    const { onSend, input, type } = renderComposer()
    fireEvent.keyDown(input, { key: 'Enter' })
    type('   ')
    fireEvent.keyDown(input, { key: 'Enter' })
    expect(onSend).not.toHaveBeenCalled()
    expect((screen.getByTestId('composer-send') as HTMLButtonElement).disabled).toBe(true)
  })

  it('sends with the Send button', async () => {
    const { onSend, type } = renderComposer()
    type('list')
    fireEvent.click(screen.getByTestId('composer-send'))
    await waitFor(() => expect(onSend).toHaveBeenCalledWith('list'))
  })

  it('keeps the text and says why when sending fails', async () => {
    const { input, type } = renderComposer(
      vi.fn(async () => {
        throw new Error('disk on fire')
      }),
    )
    type('list')
    fireEvent.keyDown(input, { key: 'Enter' })
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Not sent: unknown error (details: disk on fire)',
    )
    expect(input.value).toBe('list')
  })
})
