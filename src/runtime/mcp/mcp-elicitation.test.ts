import { describe, expect, it } from 'vitest'
import { McpElicitationRouter } from './mcp-elicitation.ts'

const REQUEST = {
  message: 'Which title?',
  requestedSchema: {
    type: 'object' as const,
    properties: { title: { type: 'string' as const } },
  },
}

function router() {
  const asked: Array<{ roomId: string; turnId: string | null }> = []
  const errors: unknown[] = []
  const elicitation = new McpElicitationRouter(
    async ({ roomId, turnId }, form) => {
      if (form.message === 'bad') throw new Error('invalid form request')
      asked.push({ roomId, turnId })
      return { action: 'accept', content: { title: 'T' } }
    },
    (error) => errors.push(error),
  )
  return { elicitation, asked, errors }
}

describe('McpElicitationRouter', () => {
  it('asks in the room of the one call in flight to that server', async () => {
    const { elicitation, asked } = router()
    const result = await elicitation.during('notes', { roomId: 'r1', turnId: 't1' }, () =>
      elicitation.handle('notes', REQUEST),
    )
    expect(result).toEqual({ action: 'accept', content: { title: 'T' } })
    expect(asked).toEqual([{ roomId: 'r1', turnId: 't1' }])
  })

  it('cancels, asking nobody, when no call or several calls to the server are in flight', async () => {
    const { elicitation, asked } = router()
    expect(await elicitation.handle('notes', REQUEST)).toEqual({ action: 'cancel' })
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const first = elicitation.during('notes', { roomId: 'r1', turnId: 't1' }, () => held)
    const second = elicitation.during('notes', { roomId: 'r2', turnId: 't2' }, async () =>
      elicitation.handle('notes', REQUEST),
    )
    expect(await second).toEqual({ action: 'cancel' })
    release()
    await first
    // Another server's call does not make this one's room known.
    const other = await elicitation.during('docs', { roomId: 'r3', turnId: 't3' }, () =>
      elicitation.handle('notes', REQUEST),
    )
    expect(other).toEqual({ action: 'cancel' })
    expect(asked).toEqual([])
  })

  it('cancels when the asker cannot reach the person, and reports it', async () => {
    const { elicitation, errors } = router()
    const result = await elicitation.during('notes', { roomId: 'r1', turnId: 't1' }, () =>
      elicitation.handle('notes', { ...REQUEST, message: 'bad' }),
    )
    expect(result).toEqual({ action: 'cancel' })
    expect(errors).toHaveLength(1)
  })

  it('passes on a schema whose top level only describes the form, without those words', async () => {
    const asked: unknown[] = []
    const elicitation = new McpElicitationRouter(
      async (_call, form) => {
        asked.push(form.requestedSchema)
        return { action: 'decline' }
      },
      () => undefined,
    )
    const described = {
      ...REQUEST.requestedSchema,
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'Note',
      additionalProperties: false,
    }
    const result = await elicitation.during('notes', { roomId: 'r1', turnId: 't1' }, () =>
      elicitation.handle('notes', { ...REQUEST, requestedSchema: described }),
    )
    expect(result).toEqual({ action: 'decline' })
    expect(asked).toEqual([REQUEST.requestedSchema])
  })

  it.each([
    [
      { ...REQUEST, requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } },
      'field "a" is a nested object',
    ],
    [{ ...REQUEST, mode: 'url', url: 'https://example.com' }, 'only form elicitation is offered'],
    [{ requestedSchema: REQUEST.requestedSchema }, 'message: Invalid input'],
  ])(
    'refuses what no form can show with invalid params and its reason, asking nobody: %j',
    async (params, reason) => {
      const { elicitation, asked, errors } = router()
      const refused = await elicitation
        .during('notes', { roomId: 'r1', turnId: 't1' }, () => elicitation.handle('notes', params))
        .then(
          () => undefined,
          (error: unknown) => error as { code: number; message: string },
        )
      expect(refused?.code).toBe(-32602)
      expect(refused?.message).toContain(`Assent cannot show this form to the person: ${reason}`)
      expect(asked).toEqual([])
      expect(errors).toEqual([refused])
    },
  )
})
