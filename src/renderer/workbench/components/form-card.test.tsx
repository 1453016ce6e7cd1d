// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { FormContent, RequestedSchema } from '../../../contracts/form-content.ts'
import type { InputCard } from '../state/input-cards.ts'
import { questionRequestFixture } from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { FormCard } from './form-card.tsx'

afterEach(cleanup)

const SCHEMA: RequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Service name', description: 'As in the registry' },
    replicas: { type: 'integer', title: 'Replicas', minimum: 1 },
    dryRun: { type: 'boolean', title: 'Dry run' },
    region: { type: 'string', title: 'Region', enum: ['eu', 'us'], enumNames: ['Europe', 'US'] },
    checks: { type: 'array', title: 'Checks', items: { type: 'string', enum: ['lint', 'tests'] } },
  },
  required: ['name', 'replicas', 'dryRun'],
}

function formCard(schema: RequestedSchema | undefined, extra: Partial<InputCard['request']> = {}) {
  return {
    stale: false,
    request: questionRequestFixture({
      kind: 'form',
      questions: [],
      blocking: true,
      form: { message: 'Deploy details', ...(schema ? { requestedSchema: schema } : {}) },
      ...extra,
    }),
  }
}

function setup(card: InputCard) {
  const responses: Array<[string, FormContent | undefined]> = []
  const onRespond = vi.fn(async (action: string, content?: FormContent) => {
    responses.push([action, content])
  })
  renderWithI18n(<FormCard card={card} onRespond={onRespond} />)
  return { responses, onRespond }
}

const flush = () => act(async () => void (await Promise.resolve()))
const sendButton = () => screen.getByTestId('form-send') as HTMLButtonElement

describe('FormCard', () => {
  it('draws each field kind with its label, description and the right control', () => {
    setup(formCard(SCHEMA))
    // The server's label is its own words, shown as they are in every language.
    const label = screen.getByText('Service name')
    expect(label.parentElement?.className).toBe('form__label')
    expect(label.hasAttribute('data-verbatim')).toBe(true)
    expect(screen.getByText('As in the registry')).toBeTruthy()
    const replicas = screen.getByLabelText(/Replicas/) as HTMLInputElement
    expect(replicas.type).toBe('number')
    expect(replicas.inputMode).toBe('numeric')
    expect(screen.getByRole('switch').getAttribute('type')).toBe('checkbox')
    expect(screen.getByLabelText('Europe').getAttribute('type')).toBe('radio')
    expect(screen.getByLabelText('lint').getAttribute('type')).toBe('checkbox')
    expect(screen.getByText(/Nothing is remembered/)).toBeTruthy()
  })

  it('enables Send only when the required fields are filled, a switch always counting', async () => {
    const { responses } = setup(formCard(SCHEMA))
    expect(sendButton().disabled).toBe(true)
    fireEvent.change(screen.getByLabelText(/Service name/), { target: { value: 'web' } })
    expect(sendButton().disabled).toBe(true)
    fireEvent.change(screen.getByLabelText(/Replicas/), { target: { value: '0' } })
    expect(sendButton().disabled).toBe(true)
    fireEvent.change(screen.getByLabelText(/Replicas/), { target: { value: '3' } })
    expect(sendButton().disabled).toBe(false)
    fireEvent.click(screen.getByLabelText('US'))
    fireEvent.click(screen.getByLabelText('tests'))
    fireEvent.click(sendButton())
    fireEvent.click(sendButton())
    await flush()
    expect(responses).toEqual([
      ['accept', { name: 'web', replicas: 3, dryRun: false, region: 'us', checks: ['tests'] }],
    ])
  })

  it('shows titled multiple choices by title and answers with their values', async () => {
    const titled: RequestedSchema = {
      type: 'object',
      properties: {
        fish: {
          type: 'array',
          title: 'Fish',
          items: { type: 'string', enum: ['fish-1', 'fish-2'], enumNames: ['Tuna', 'Salmon'] },
        },
      },
    }
    const { responses } = setup(formCard(titled))
    expect(screen.queryByLabelText('fish-2')).toBeNull()
    fireEvent.click(screen.getByLabelText('Salmon'))
    fireEvent.click(sendButton())
    await flush()
    expect(responses).toEqual([['accept', { fish: ['fish-2'] }]])
  })

  it('declines with Decline and cancels with the close button', async () => {
    const first = setup(formCard(SCHEMA))
    fireEvent.click(screen.getByTestId('form-decline'))
    await flush()
    expect(first.responses).toEqual([['decline', undefined]])
    cleanup()
    const second = setup(formCard(SCHEMA))
    fireEvent.click(screen.getByTestId('form-close'))
    await flush()
    expect(second.responses).toEqual([['cancel', undefined]])
  })

  it('without a schema asks for one answer in a large text field', async () => {
    const { responses } = setup(formCard(undefined))
    expect(sendButton().disabled).toBe(true)
    fireEvent.change(screen.getByTestId('form-answer'), { target: { value: 'next week' } })
    fireEvent.click(sendButton())
    await flush()
    expect(responses).toEqual([['accept', { answer: 'next week' }]])
  })

  it('never shows the fields of a sensitive form in the workbench', () => {
    const sensitive: RequestedSchema = {
      type: 'object',
      properties: { password: { type: 'string', format: 'password', title: 'Password' } },
      required: ['password'],
    }
    setup(formCard(sensitive, { sensitive: true }))
    expect(screen.getByTestId('form-sensitive').textContent).toContain('protected window')
    expect(screen.queryByLabelText(/Password/)).toBeNull()
    expect(screen.queryByTestId('form-send')).toBeNull()
    expect(document.querySelector('input')).toBeNull()
  })

  it('shows a declined form as declined, without buttons', () => {
    setup(formCard(SCHEMA, { status: 'declined' }))
    expect(screen.getByTestId('form-card').dataset.outcome).toBe('declined')
    expect(screen.queryByRole('button')).toBeNull()
  })
})
