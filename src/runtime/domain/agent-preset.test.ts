import { describe, expect, it } from 'vitest'
import {
  AgentPresetSchema,
  DEFAULT_AGENT_ID,
  agentCeilings,
  agentMayUseTool,
  builtInAgents,
  fullAccessBlocker,
} from './agent-preset.ts'
import type { AgentPreset } from './agent-preset.ts'

const roots = ['/repos/one', '/repos/two']
const byId = (id: string): AgentPreset => {
  const agent = builtInAgents({ scopedRoots: roots }).find((a) => a.id === id)
  if (!agent) throw new Error(`no built-in agent ${id}`)
  return agent
}

describe('built-in agents', () => {
  it('ships assistant, reader, scoped and the MCP gateway, assistant first as the default', () => {
    const agents = builtInAgents({ scopedRoots: roots })
    expect(agents.map((a) => a.id)).toEqual(['assistant', 'reader', 'scoped', 'mcp-gateway'])
    expect(DEFAULT_AGENT_ID).toBe('assistant')
  })

  it('passes its own schema', () => {
    for (const agent of builtInAgents({ scopedRoots: roots })) {
      expect(AgentPresetSchema.parse(agent)).toEqual(agent)
    }
  })

  it('gives the assistant every tool and no ceiling', () => {
    const a = byId('assistant')
    expect(a.toolPolicy.readOnly).toBe(false)
    expect(a.allowedRepositoryRoots).toBeUndefined()
    expect(agentMayUseTool(a, 'run_command')).toBe(true)
  })

  it('keeps the reader to reading tools', () => {
    const r = byId('reader')
    expect(r.toolPolicy.readOnly).toBe(true)
    expect(agentMayUseTool(r, 'read_file')).toBe(true)
    expect(agentMayUseTool(r, 'list_dir')).toBe(true)
    expect(agentMayUseTool(r, 'write_file')).toBe(false)
    expect(agentMayUseTool(r, 'run_command')).toBe(false)
  })

  it('gives the MCP gateway agent no built-in tool and no full access', () => {
    const gateway = byId('mcp-gateway')
    expect(agentMayUseTool(gateway, 'read_file')).toBe(false)
    expect(agentMayUseTool(gateway, 'run_command')).toBe(false)
    expect(fullAccessBlocker(gateway)).toBe('read_only_agent')
  })

  it('ceils the scoped agent at the roots it was given', () => {
    expect(byId('scoped').allowedRepositoryRoots).toEqual(roots)
  })

  it('copies the scoped roots, so later edits by the caller do not move the ceiling', () => {
    const mine = ['/repos/one']
    const scoped = builtInAgents({ scopedRoots: mine }).find((a) => a.id === 'scoped')
    mine.push('/')
    expect(scoped?.allowedRepositoryRoots).toEqual(['/repos/one'])
  })
})

describe('fullAccessBlocker', () => {
  it('blocks full access for a read-only agent', () => {
    expect(fullAccessBlocker(byId('reader'))).toBe('read_only_agent')
  })

  it('blocks full access for an agent with directory limits', () => {
    expect(fullAccessBlocker(byId('scoped'))).toBe('agent_directory_limits')
  })

  it('blocks full access even for an empty root list', () => {
    const none: AgentPreset = { ...byId('assistant'), allowedRepositoryRoots: [] }
    expect(fullAccessBlocker(none)).toBe('agent_directory_limits')
  })

  it('names read-only first when both apply', () => {
    const both: AgentPreset = { ...byId('reader'), allowedRepositoryRoots: ['/r'] }
    expect(fullAccessBlocker(both)).toBe('read_only_agent')
  })

  it('allows full access for the unrestricted assistant', () => {
    expect(fullAccessBlocker(byId('assistant'))).toBeNull()
  })
})

describe('agent presets as input', () => {
  it('rejects unknown keys', () => {
    const parsed = AgentPresetSchema.safeParse({
      id: 'x',
      name: 'X',
      toolPolicy: { readOnly: false },
      fullAccess: true,
    })
    expect(parsed.success).toBe(false)
  })

  it('rejects unknown keys inside the tool policy', () => {
    const parsed = AgentPresetSchema.safeParse({
      id: 'x',
      name: 'X',
      toolPolicy: { readOnly: false, bypass: true },
    })
    expect(parsed.success).toBe(false)
  })
})

describe('agentCeilings', () => {
  it('carries read-only and the roots to the sandbox check', () => {
    expect(agentCeilings(byId('reader'))).toEqual({ readOnly: true })
    expect(agentCeilings(byId('scoped'))).toEqual({
      readOnly: false,
      allowedRepositoryRoots: roots,
    })
  })
})
