/// <reference types="node" />
import { CDP_PROTECTED_BINDING, CDP_PROTECTED_RECEIVE } from '../common/cdp-names.ts'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { IPC } from '../common/ipc-channels.ts'
import { createCdpTransport } from './cdp-transport.ts'
import { createElectronTransport, type RendererIpc } from './electron-transport.ts'
import { ViewInbox } from './transport.ts'

describe('ViewInbox', () => {
  it('hands views that came early to the listener once it is set, then the rest directly', () => {
    const inbox = new ViewInbox()
    const seen: unknown[] = []
    inbox.deliver('early')
    inbox.onShow((view) => seen.push(view))
    inbox.deliver('late')
    expect(seen).toEqual(['early', 'late'])
  })

  it('keeps only a few early views', () => {
    const inbox = new ViewInbox()
    for (let i = 0; i < 100; i++) inbox.deliver(i)
    const seen: unknown[] = []
    inbox.onShow((view) => seen.push(view))
    expect(seen).toEqual([0, 1, 2, 3])
  })
})

describe('Electron transport', () => {
  it('receives views on the show channel and sends decisions on the decide channel', () => {
    const listeners = new Map<string, (event: unknown, ...args: unknown[]) => void>()
    const sent: unknown[][] = []
    const ipc: RendererIpc = {
      on: (channel, listener) => listeners.set(channel, listener),
      send: (...args) => sent.push(args),
    }
    const transport = createElectronTransport(ipc)
    const views: unknown[] = []
    transport.onShow((view) => views.push(view))

    const refusals: unknown[] = []
    transport.onRefused?.((message) => refusals.push(message))

    listeners.get(IPC.consentShow)?.({ sender: 'ignored' }, { subject: 'approval' })
    transport.viewDrawn?.('p')
    transport.sendDecision({ promptId: 'p', answer: 'deny' })
    listeners.get(IPC.consentRefused)?.({ sender: 'ignored' }, { promptId: 'p' })

    expect([...listeners.keys()]).toEqual([IPC.consentShow, IPC.consentRefused])
    expect(views).toEqual([{ subject: 'approval' }])
    expect(refusals).toEqual([{ promptId: 'p' }])
    expect(sent).toEqual([
      [IPC.consentDrawn, { promptId: 'p' }],
      [IPC.consentDecide, { promptId: 'p', answer: 'deny' }],
    ])
  })
})

describe('CDP transport', () => {
  const receiveOf = (scope: object) =>
    Reflect.get(scope, CDP_PROTECTED_RECEIVE) as (json: unknown) => void

  it('sends the JSON of a decision through the binding captured at start', () => {
    const calls: unknown[] = []
    const scope: Record<string, unknown> = {
      [CDP_PROTECTED_BINDING]: (json: string) => calls.push(json),
    }
    const transport = createCdpTransport(scope)
    scope[CDP_PROTECTED_BINDING] = () => calls.push('swapped')

    transport.sendDecision({ promptId: 'p', answer: 'allow-once' })
    expect(calls).toEqual([JSON.stringify({ promptId: 'p', answer: 'allow-once' })])
  })

  it('sends nothing, and does not throw, when the binding is missing', () => {
    const scope: Record<string, unknown> = {}
    const transport = createCdpTransport(scope)
    scope[CDP_PROTECTED_BINDING] = () => {
      throw new Error('a binding that appears later must not be used')
    }
    expect(() => transport.sendDecision({ promptId: 'p', answer: 'deny' })).not.toThrow()
  })

  it('delivers parsed JSON views and ignores anything that is not JSON text', () => {
    const scope = {}
    const transport = createCdpTransport(scope)
    const views: unknown[] = []
    transport.onShow((view) => views.push(view))
    const receive = receiveOf(scope)

    const refusals: unknown[] = []
    transport.onRefused?.((message) => refusals.push(message))
    receive('{"subject":"approval"}')
    receive('{not json')
    receive({ subject: 'approval' })
    receive('{"refused":true,"promptId":"p"}')
    expect(views).toEqual([{ subject: 'approval' }])
    expect(refusals).toEqual([{ refused: true, promptId: 'p' }])
  })

  it('defines the receive function so it cannot be replaced', () => {
    const scope = {}
    createCdpTransport(scope)
    const descriptor = Object.getOwnPropertyDescriptor(scope, CDP_PROTECTED_RECEIVE)
    expect(descriptor).toMatchObject({ writable: false, configurable: false, enumerable: false })
    expect(typeof descriptor?.value).toBe('function')
  })
})

describe('protected preload sources', () => {
  // A bridge in the main world, or markup built from action text, would undo
  // the window's guarantees; neither has a place anywhere in this folder.
  const sources = readdirSync(import.meta.dirname)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => [file, readFileSync(join(import.meta.dirname, file), 'utf8')] as const)

  it('are found (the scan below is not vacuous)', () => {
    expect(sources.map(([file]) => file)).toContain('consent-render.ts')
  })

  for (const forbidden of [
    'contextBridge',
    'exposeInMainWorld',
    'innerHTML',
    'outerHTML',
    'insertAdjacentHTML',
    'document.write',
  ]) {
    it(`never use ${forbidden}`, () => {
      expect(sources.filter(([, text]) => text.includes(forbidden)).map(([file]) => file)).toEqual(
        [],
      )
    })
  }
})
