// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { workbenchApi } from '../gui/workbench-api.ts'
import { FakeGui } from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { StopTurn } from './stop-turn.tsx'

afterEach(cleanup)

const EXTERNAL = { id: 'codex', name: 'Codex', kind: 'external', protocol: 'acp' } as const

function renderStop(
  gui: FakeGui,
  agentId: string,
  turn: { id: string } | undefined,
  lang: 'en' | 'zh-CN' = 'en',
) {
  const stopped: string[] = []
  renderWithI18n(
    <StopTurn
      api={workbenchApi(gui)}
      room={{ agentId }}
      turn={turn}
      onStopped={() => stopped.push('stopped')}
    />,
    lang,
  )
  return stopped
}

const stops = (gui: FakeGui) =>
  gui.calls.filter((call) => call.method === 'stopTurn').map((call) => call.args)

describe('the control that stops a room’s running turn', () => {
  it('stops an external agent’s running turn, and then has the timeline read again', async () => {
    const gui = new FakeGui()
    gui.agents = [...gui.agents, EXTERNAL]
    const stopped = renderStop(gui, 'codex', { id: 'turn-1' })
    fireEvent.click(await screen.findByRole('button', { name: 'Stop the agent' }))
    await waitFor(() => expect(stopped).toEqual(['stopped']))
    expect(stops(gui)).toEqual([['turn-1']])
  })

  it('says why, in the person’s language, when the runtime refuses', async () => {
    const gui = new FakeGui()
    gui.agents = [...gui.agents, EXTERNAL]
    gui.stop = async () => ({
      status: 409,
      body: { code: 'turn_not_running', error: 'the turn has already ended' },
    })
    const stopped = renderStop(gui, 'codex', { id: 'turn-1' }, 'zh-CN')
    fireEvent.click(await screen.findByRole('button', { name: '停止智能体' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('无法停止')
    expect(alert.textContent).toContain('该请求已经结束')
    expect(stopped).toEqual([])
  })

  it('is not there for the built-in agent, whose turn ends when what it waits for is decided, nor with no turn running', async () => {
    const gui = new FakeGui()
    gui.agents = [...gui.agents, EXTERNAL]
    const api = workbenchApi(gui)
    const builtIn = gui.agents[0]!.id
    renderWithI18n(
      <>
        <StopTurn api={api} room={{ agentId: builtIn }} turn={{ id: 'b' }} onStopped={() => {}} />
        <StopTurn api={api} room={{ agentId: 'codex' }} turn={undefined} onStopped={() => {}} />
        <StopTurn api={api} room={{ agentId: 'codex' }} turn={{ id: 'e' }} onStopped={() => {}} />
      </>,
      'en',
    )
    // Each read the agents; once the external one's button is drawn, the
    // others have had theirs too.
    await screen.findByRole('button', { name: 'Stop the agent' })
    fireEvent.click(screen.getByRole('button', { name: 'Stop the agent' }))
    await waitFor(() => expect(stops(gui)).toEqual([['e']]))
    expect(screen.getAllByTestId('stop-turn')).toHaveLength(1)
  })
})
