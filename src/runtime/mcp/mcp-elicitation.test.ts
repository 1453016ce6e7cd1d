import { describe, expect, it } from 'vitest'
import { GatewayFormRequestSchema, MAX_FORM_JSON_CHARS } from '../../contracts/mcp-gateway.ts'
import { McpElicitationRouter } from './mcp-elicitation.ts'

const REQUEST = {
  message: 'Which title?',
  requestedSchema: {
    type: 'object' as const,
    properties: { title: { type: 'string' as const } },
  },
}

/** The server's side of a request it never cancels. */
const LIVE = new AbortController().signal

/** A form of `fields` fields, each described at the most a field may be:
 *  32 fit in MAX_FORM_JSON_CHARS, 33 do not. */
function describedForm(fields: number) {
  const properties = Object.fromEntries(
    Array.from({ length: fields }, (_, n) => [
      `f${n}`,
      { type: 'string' as const, description: 'd'.repeat(2_000) },
    ]),
  )
  return { message: 'Fill it all', requestedSchema: { type: 'object' as const, properties } }
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

/** A call's `run` that lets its server ask at once, as the allowed call
 *  itself does (`beforeRun`), then does `handle`. */
function runs<T>(handle: () => Promise<T>): (running: (asked: boolean) => void) => Promise<T> {
  return (running) => {
    running(true)
    return handle()
  }
}

describe('McpElicitationRouter', () => {
  it('asks in the room of the one call in flight to that server', async () => {
    const { elicitation, asked } = router()
    const result = await elicitation.during(
      'notes',
      { roomId: 'r1', turnId: 't1' },
      runs(() => elicitation.handle('notes', REQUEST, true, LIVE)),
    )
    expect(result).toEqual({ action: 'accept', content: { title: 'T' } })
    expect(asked).toEqual([{ roomId: 'r1', turnId: 't1' }])
  })

  it('cancels, asking nobody, until the call runs (its preview, the wait for the person)', async () => {
    const { elicitation, asked } = router()
    const result = await elicitation.during(
      'notes',
      { roomId: 'r1', turnId: 't1' },
      async (running) => {
        const before = await elicitation.handle('notes', REQUEST, true, LIVE)
        running(true)
        return [before, await elicitation.handle('notes', REQUEST, true, LIVE)]
      },
    )
    expect(result).toEqual([{ action: 'cancel' }, { action: 'accept', content: { title: 'T' } }])
    expect(asked).toEqual([{ roomId: 'r1', turnId: 't1' }])
  })

  it('cancels, asking nobody, when no call or several calls to the server are in flight', async () => {
    const { elicitation, asked } = router()
    expect(await elicitation.handle('notes', REQUEST, true, LIVE)).toEqual({ action: 'cancel' })
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const first = elicitation.during('notes', { roomId: 'r1', turnId: 't1' }, () => held)
    const second = elicitation.during(
      'notes',
      { roomId: 'r2', turnId: 't2' },
      runs(() => elicitation.handle('notes', REQUEST, true, LIVE)),
    )
    expect(await second).toEqual({ action: 'cancel' })
    release()
    await first
    // Another server's call does not make this one's room known.
    const other = await elicitation.during(
      'docs',
      { roomId: 'r3', turnId: 't3' },
      runs(() => elicitation.handle('notes', REQUEST, true, LIVE)),
    )
    expect(other).toEqual({ action: 'cancel' })
    expect(asked).toEqual([])
  })

  it('cancels, asking nobody, while the server has another request beside the call to answer', async () => {
    const { elicitation, asked } = router()
    const result = await elicitation.during(
      'notes',
      { roomId: 'r1', turnId: 't1' },
      runs(() => elicitation.handle('notes', REQUEST, false, LIVE)),
    )
    expect(result).toEqual({ action: 'cancel' })
    expect(asked).toEqual([])
  })

  it('cancels, asking nobody, for a call that runs unasked (a read-only manifest)', async () => {
    const { elicitation, asked } = router()
    const result = await elicitation.during('notes', { roomId: 'r1', turnId: 't1' }, (running) => {
      running(false)
      return elicitation.handle('notes', REQUEST, true, LIVE)
    })
    expect(result).toEqual({ action: 'cancel' })
    expect(asked).toEqual([])
  })

  it("tells the asker when the form's call is over, so a form still open is withdrawn", async () => {
    const signals: AbortSignal[] = []
    const elicitation = new McpElicitationRouter(
      async (_call, _form, ended) => {
        signals.push(ended)
        return { action: 'accept', content: { title: 'T' } }
      },
      () => undefined,
    )
    await elicitation.during(
      'notes',
      { roomId: 'r1', turnId: 't1' },
      runs(async () => {
        await elicitation.handle('notes', REQUEST, true, LIVE)
        expect(signals[0]?.aborted).toBe(false)
      }),
    )
    expect(signals).toHaveLength(1)
    expect(signals[0]?.aborted).toBe(true)
  })

  it('withdraws a form its server cancelled while the call still runs, and asks nobody for one cancelled already', async () => {
    const signals: AbortSignal[] = []
    const elicitation = new McpElicitationRouter(
      async (_call, _form, over) => {
        signals.push(over)
        // Answered only once withdrawn, as a form in a room is.
        await new Promise((resolve) => over.addEventListener('abort', resolve, { once: true }))
        return { action: 'cancel' as const }
      },
      () => undefined,
    )
    const cancelled = new AbortController()
    await elicitation.during(
      'notes',
      { roomId: 'r1', turnId: 't1' },
      runs(async () => {
        const form = elicitation.handle('notes', REQUEST, true, cancelled.signal)
        expect(signals).toHaveLength(1)
        expect(signals[0]?.aborted).toBe(false)
        cancelled.abort()
        expect(await form).toEqual({ action: 'cancel' })
        // The call has not ended: the server's cancellation withdrew it.
        expect(signals[0]?.aborted).toBe(true)
        expect(await elicitation.handle('notes', REQUEST, true, cancelled.signal)).toEqual({
          action: 'cancel',
        })
      }),
    )
    expect(signals).toHaveLength(1)
  })

  it('cancels when the asker cannot reach the person, and reports it', async () => {
    const { elicitation, errors } = router()
    const result = await elicitation.during(
      'notes',
      { roomId: 'r1', turnId: 't1' },
      runs(() => elicitation.handle('notes', { ...REQUEST, message: 'bad' }, true, LIVE)),
    )
    expect(result).toEqual({ action: 'cancel' })
    expect(errors).toHaveLength(1)
  })

  it('asks about a form as long as a person is shown, and refuses one field more with the reason', async () => {
    const fits = describedForm(32)
    expect(JSON.stringify(fits).length).toBeLessThanOrEqual(MAX_FORM_JSON_CHARS)
    const { elicitation, asked, errors } = router()
    const during = (params: unknown) =>
      elicitation.during(
        'notes',
        { roomId: 'r1', turnId: 't1' },
        runs(() => elicitation.handle('notes', params, true, LIVE)),
      )
    expect(await during(fits)).toEqual({ action: 'accept', content: { title: 'T' } })
    expect(asked).toEqual([{ roomId: 'r1', turnId: 't1' }])

    const tooLong = describedForm(33)
    const length = JSON.stringify(tooLong).length
    expect(length).toBeGreaterThan(MAX_FORM_JSON_CHARS)
    const refused = await during(tooLong).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string },
    )
    expect(refused?.code).toBe(-32602)
    expect(refused?.message).toContain(
      `Assent cannot show this form to the person: the form is ${length} characters, more than the ${MAX_FORM_JSON_CHARS} a person is shown`,
    )
    expect(asked).toHaveLength(1)
    expect(errors).toEqual([refused])

    // The runtime's gateway door (a server behind assent-gateway) reads the
    // same rule: the form that fits passes, the one field more is refused
    // with the same reason.
    expect(GatewayFormRequestSchema.safeParse(fits).success).toBe(true)
    const atTheGateway = GatewayFormRequestSchema.safeParse(tooLong)
    expect(atTheGateway.error?.issues.map((issue) => issue.message)).toEqual([
      `the form is ${length} characters, more than the ${MAX_FORM_JSON_CHARS} a person is shown`,
    ])
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
    const result = await elicitation.during(
      'notes',
      { roomId: 'r1', turnId: 't1' },
      runs(() =>
        elicitation.handle('notes', { ...REQUEST, requestedSchema: described }, true, LIVE),
      ),
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
        .during('notes', { roomId: 'r1', turnId: 't1' }, () =>
          elicitation.handle('notes', params, true, LIVE),
        )
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
