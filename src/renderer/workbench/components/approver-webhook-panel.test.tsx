// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { workbenchApi } from '../gui/workbench-api.ts'
import { FakeGui } from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { ApproverWebhookPanel } from './approver-webhook-panel.tsx'

afterEach(cleanup)

const WEBHOOK = {
  webhookId: 'w-1',
  url: 'https://approver.example/decide',
  createdAt: 1,
}

function renderPanel(gui: FakeGui, lang: 'en' | 'zh-CN' = 'en') {
  renderWithI18n(<ApproverWebhookPanel roomId="room-1" api={workbenchApi(gui)} />, lang)
}

const calls = (gui: FakeGui) =>
  gui.calls.filter((call) => call.method === 'requestApproverWebhook').map((call) => call.args)

describe('the approver webhook panel', () => {
  it('shows the webhook in force by its URL, read from the runtime', async () => {
    const gui = new FakeGui()
    gui.webhookOf.set('room-1', WEBHOOK)
    renderPanel(gui)
    await waitFor(() =>
      expect(screen.getByTestId('webhook-current').textContent).toContain(WEBHOOK.url),
    )
    expect(gui.calls.some((call) => call.method === 'approverWebhook')).toBe(true)
  })

  it('asks main (the protected window) to set exactly the URL typed, and shows what came of it', async () => {
    const gui = new FakeGui()
    gui.webhookChange = async (_roomId, url) => ({
      status: 'webhook-changed',
      webhook: { ...WEBHOOK, url: url ?? '' },
    })
    renderPanel(gui)
    await waitFor(() =>
      expect(screen.getByTestId('webhook-current').textContent).toMatch(/you decide/),
    )
    const set = screen.getByTestId('webhook-set') as HTMLButtonElement
    expect(set.disabled).toBe(true)
    fireEvent.change(screen.getByTestId('webhook-url'), {
      target: { value: 'http://127.0.0.1:9/x' },
    })
    fireEvent.click(set)
    await waitFor(() =>
      expect(screen.getByTestId('webhook-said').textContent).toContain('http://127.0.0.1:9/x'),
    )
    expect(calls(gui)).toEqual([['room-1', 'http://127.0.0.1:9/x']])
    expect(screen.getByTestId('webhook-current').textContent).toContain('http://127.0.0.1:9/x')
  })

  it('removes through main too, and says the person decides again', async () => {
    const gui = new FakeGui()
    gui.webhookOf.set('room-1', WEBHOOK)
    gui.webhookChange = async () => ({ status: 'webhook-changed', webhook: null })
    renderPanel(gui)
    fireEvent.click(await screen.findByTestId('webhook-remove'))
    await waitFor(() => expect(screen.getByTestId('webhook-said').textContent).toMatch(/removed/))
    expect(calls(gui)).toEqual([['room-1', null]])
    expect(screen.queryByTestId('webhook-remove')).toBeNull()
  })

  it('says nothing changed when the window was cancelled, and the webhook in force stays', async () => {
    const gui = new FakeGui()
    gui.webhookOf.set('room-1', WEBHOOK)
    renderPanel(gui, 'zh-CN')
    fireEvent.click(await screen.findByTestId('webhook-remove'))
    await waitFor(() =>
      expect(screen.getByTestId('webhook-said').textContent).toBe('没有任何更改。'),
    )
    expect(screen.getByTestId('webhook-current').textContent).toContain(WEBHOOK.url)
  })
})
