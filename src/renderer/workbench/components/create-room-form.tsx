import { useEffect, useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import type { AgentSummary } from '../../../contracts/agents-config.ts'
import type { Room } from '../../../contracts/room.ts'
import { errorText } from '../gui/error-text.ts'
import type { WorkbenchApi } from '../gui/workbench-api.ts'

/** The agents every install ships with (src/runtime/domain/agent-preset.ts). */
export const AGENT_LABEL = {
  assistant: 'workbench.agent.assistant',
  reader: 'workbench.agent.reader',
  scoped: 'workbench.agent.scoped',
} as const

/** What the form offers until the runtime has listed its agents, and if it
 *  cannot: the agents every install ships with. */
export const BUILT_IN_AGENT_SUMMARIES: readonly AgentSummary[] = Object.freeze(
  Object.keys(AGENT_LABEL).map((id) => ({
    id,
    name: id,
    kind: 'built-in' as const,
    protocol: null,
  })),
)

/** POSIX (`/home/…`), Windows drive (`C:\…`) or UNC (`\\server\…`). The
 *  runtime checks again that the folder exists. */
export function isAbsolutePath(path: string): boolean {
  return /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(path)
}

/** Creates a direct room: one agent, one workspace folder, a title. */
export function CreateRoomForm({
  api,
  onCreated,
}: {
  api: Pick<WorkbenchApi, 'createRoom' | 'listAgents'>
  onCreated: (room: Room) => void
}) {
  const { t } = useTranslation()
  const headingId = useId()
  const hintId = useId()
  const [agents, setAgents] = useState<readonly AgentSummary[]>(BUILT_IN_AGENT_SUMMARIES)
  const [agentId, setAgentId] = useState('assistant')
  const [workspace, setWorkspace] = useState('')
  const [title, setTitle] = useState('')
  const [creating, setCreating] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)

  useEffect(() => {
    let current = true
    api.listAgents().then(
      (listed) => {
        if (current && listed.length > 0) setAgents(listed)
      },
      // The built-in agents stay on offer; creating a room says what is wrong.
      () => undefined,
    )
    return () => {
      current = false
    }
  }, [api])

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (creating) return
    const folder = workspace.trim()
    if (!isAbsolutePath(folder)) return setError(t('workbench.createRoom.notAbsolute'))
    if (title.trim() === '') return setError(t('workbench.createRoom.titleMissing'))
    setCreating(true)
    setError(undefined)
    try {
      const room = await api.createRoom({
        kind: 'direct',
        agentId,
        workspace: folder,
        title: title.trim(),
      })
      setTitle('')
      onCreated(room)
    } catch (failure) {
      setError(t('workbench.createRoom.failed', { reason: errorText(t, failure) }))
    } finally {
      setCreating(false)
    }
  }

  return (
    <form
      className="create-room"
      data-testid="create-room-form"
      aria-labelledby={headingId}
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <h1 className="create-room__heading" id={headingId}>
        {t('workbench.createRoom.heading')}
      </h1>
      <p className="create-room__intro">{t('workbench.createRoom.intro')}</p>
      <div className="field">
        <label htmlFor="create-room-agent">{t('workbench.createRoom.agent')}</label>
        <select
          id="create-room-agent"
          data-testid="room-agent"
          value={agentId}
          onChange={(event) => setAgentId(event.target.value)}
        >
          {agents.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agentOptionLabel(t, agent)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="create-room-workspace">{t('workbench.createRoom.workspace')}</label>
        <input
          id="create-room-workspace"
          data-testid="room-workspace"
          type="text"
          value={workspace}
          required
          spellCheck={false}
          autoComplete="off"
          className="mono"
          aria-describedby={hintId}
          onChange={(event) => setWorkspace(event.target.value)}
        />
        <p className="field__hint" id={hintId}>
          {t('workbench.createRoom.workspaceHint')}
        </p>
      </div>
      <div className="field">
        <label htmlFor="create-room-title">{t('workbench.createRoom.title')}</label>
        <input
          id="create-room-title"
          data-testid="room-title"
          type="text"
          value={title}
          required
          autoComplete="off"
          placeholder={t('workbench.createRoom.titlePlaceholder')}
          onChange={(event) => setTitle(event.target.value)}
        />
      </div>
      {error ? (
        <p className="field__error" role="alert" data-testid="room-create-error">
          {error}
        </p>
      ) : null}
      <button
        type="submit"
        className="button button--primary"
        data-testid="room-create"
        disabled={creating}
      >
        {creating ? t('workbench.createRoom.creating') : t('workbench.createRoom.submit')}
      </button>
    </form>
  )
}

/** A built-in agent by its name in the catalogs; an external one by the
 *  name its agents.json entry gives, said to be external. */
function agentOptionLabel(t: ReturnType<typeof useTranslation>['t'], agent: AgentSummary): string {
  if (agent.kind === 'built-in' && Object.hasOwn(AGENT_LABEL, agent.id)) {
    return t(AGENT_LABEL[agent.id as keyof typeof AGENT_LABEL])
  }
  return t('workbench.agent.external', { name: agent.name })
}
