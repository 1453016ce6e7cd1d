import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AgentsConfigSchema, BUILT_IN_AGENT_IDS } from '../../contracts/agents-config.ts'
import { builtInAgents } from '../domain/agent-preset.ts'
import { KNOWN_ACP_SESSION_MODES } from './agent-mode-mapping.ts'
import { AGENTS_LAST_GOOD_FILE_NAME, loadAgentsConfig } from './agents-config-loader.ts'

const codex = { id: 'codex', protocol: 'codex-app-server', command: 'codex', args: ['app-server'] }
const acp = {
  id: 'codex-acp',
  protocol: 'acp',
  command: 'codex-acp',
  session_modes: KNOWN_ACP_SESSION_MODES['codex-acp'],
}

function firstIssue(value: unknown): string {
  const parsed = AgentsConfigSchema.safeParse(value)
  if (parsed.success) return 'accepted'
  const issue = parsed.error.issues[0]
  return `${issue?.path.join('.')}: ${issue?.message}`
}

describe('the agents.json schema', () => {
  it('settles defaults: the name is the id, no extra environment', () => {
    const parsed = AgentsConfigSchema.parse({ agents: [codex, acp] })
    expect(parsed.agents.map((a) => [a.id, a.name, a.pass_env, a.set_env])).toEqual([
      ['codex', 'codex', [], {}],
      ['codex-acp', 'codex-acp', [], {}],
    ])
  })

  it('refuses unknown keys, naming the field', () => {
    expect(firstIssue({ agents: [{ ...codex, sandbox: 'none' }] })).toMatch(/^agents\.0: .*sandbox/)
    expect(firstIssue({ agents: [codex], extra: true })).toMatch(/^: .*extra/)
    expect(
      firstIssue({ agents: [{ ...acp, session_modes: { ...acp.session_modes, yolo: 'x' } }] }),
    ).toMatch(/^agents\.0\.session_modes: .*yolo/)
  })

  it('asks an ACP entry for a session mode per room mode, and refuses modes on a Codex entry', () => {
    const { session_modes: _omitted, ...withoutModes } = acp
    expect(firstIssue({ agents: [withoutModes] })).toMatch(/^agents\.0\.session_modes/)
    const { 'full-access': _fa, ...partial } = acp.session_modes
    expect(firstIssue({ agents: [{ ...acp, session_modes: partial }] })).toMatch(
      /^agents\.0\.session_modes\.full-access/,
    )
    expect(firstIssue({ agents: [{ ...codex, session_modes: acp.session_modes }] })).toMatch(
      /^agents\.0: .*session_modes/,
    )
  })

  it('refuses an entry that takes the id of a built-in agent', () => {
    for (const id of BUILT_IN_AGENT_IDS) {
      expect(firstIssue({ agents: [{ ...codex, id }] })).toBe(
        `agents.0.id: ${id} is the id of a built-in agent`,
      )
    }
    // The list is the built-in agents' own ids, not a copy that could drift.
    expect([...BUILT_IN_AGENT_IDS].sort()).toEqual(
      builtInAgents({ scopedRoots: [] })
        .map((agent) => agent.id)
        .sort(),
    )
  })

  it('refuses bad ids, duplicate ids, unknown protocols and bad variable names', () => {
    expect(firstIssue({ agents: [{ ...codex, id: 'Codex CLI' }] })).toMatch(/^agents\.0\.id/)
    expect(firstIssue({ agents: [codex, { ...acp, id: 'codex' }] })).toBe(
      'agents.1.id: duplicate agent id codex',
    )
    expect(firstIssue({ agents: [{ ...codex, protocol: 'mcp' }] })).toMatch(/^agents\.0\.protocol/)
    expect(firstIssue({ agents: [{ ...codex, pass_env: ['OPENAI-KEY'] }] })).toMatch(
      /^agents\.0\.pass_env\.0/,
    )
    expect(firstIssue({ agents: [{ ...codex, set_env: { '1X': 'v' } }] })).toMatch(
      /^agents\.0\.set_env/,
    )
  })
})

describe('loading agents.json', () => {
  let dataDir: string
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'assent-agents-config-'))
  })
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

  it('starts with no agents when there is no file', () => {
    expect(loadAgentsConfig(dataDir)).toEqual({ config: { agents: [] } })
  })

  it('keeps the last good list, privately, when an edit breaks the file', () => {
    const file = join(dataDir, 'agents.json')
    writeFileSync(file, JSON.stringify({ agents: [codex] }))
    expect(loadAgentsConfig(dataDir).config.agents.map((a) => a.id)).toEqual(['codex'])
    expect(statSync(join(dataDir, AGENTS_LAST_GOOD_FILE_NAME)).mode & 0o777).toBe(0o600)

    writeFileSync(file, JSON.stringify({ agents: [{ ...codex, command: 'evil', surprise: 1 }] }))
    const loaded = loadAgentsConfig(dataDir)
    expect(loaded.config.agents.map((a) => [a.id, a.command])).toEqual([['codex', 'codex']])
    expect(loaded.refused?.field).toBe('agents.0')
    expect(loaded.refused?.message).toMatch(/surprise/)

    writeFileSync(file, '{ not json')
    expect(loadAgentsConfig(dataDir).refused?.field).toBe('(file)')
    expect(loadAgentsConfig(dataDir).config.agents).toHaveLength(1)
  })

  it('has no agents when both the file and the last good copy are damaged', () => {
    writeFileSync(join(dataDir, 'agents.json'), '[]')
    writeFileSync(join(dataDir, AGENTS_LAST_GOOD_FILE_NAME), '{"agents": 5}')
    const loaded = loadAgentsConfig(dataDir)
    expect(loaded.config).toEqual({ agents: [] })
    expect(loaded.refused?.field).toBe('(root)')
  })
})
