import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeAgentHome } from '../scripts/agents/scripted-agents-config.ts'
import {
  CODEX_GATEWAY_NAMESPACE,
  runCodexExec,
  writeCodexGatewayHome,
  writeFilesystemGatewayConfig,
} from '../scripts/agents/codex-mcp-client.ts'
import {
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../scripts/agents/scripted-model-server.ts'
import { RUNTIME_READY_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { MCP_REFUSAL_CODES } from '../src/runtime/mcp/mcp-refusal.ts'
import { AGENT_WAIT_MS, realAgentsOrSkip } from './support/external-agent-testbed.ts'
import { decide, nextPendingApproval } from './support/mcp-gateway-harness.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * The pinned Codex CLI as the MCP client no one here wrote: its config.toml
 * names `assent-gateway` under `[mcp_servers.assent]`, the gateway fronts the
 * pinned `@modelcontextprotocol/server-filesystem`, and only Codex's model is
 * scripted. The person's decision is given as main gives it: a consent token
 * minted for exactly that action.
 */
const agents = realAgentsOrSkip()

describe.skipIf(!agents)('Codex CLI calling MCP tools through assent-gateway', () => {
  let harness: RuntimeHarness
  let model: ScriptedModelServer
  let home: string
  let environment: Record<string, string>
  let project: string

  beforeAll(async () => {
    harness = await startHarness()
    // realpath: Codex reports the resolved path, and the filesystem server
    // compares against it.
    project = realpathSync(harness.workspace)
    mkdirSync(project, { recursive: true })
    model = await startScriptedModelServer()
    home = makeAgentHome(harness.root)
    environment = writeCodexGatewayHome({
      home,
      modelBaseUrl: model.baseUrl,
      workspace: project,
      configPath: writeFilesystemGatewayConfig(join(harness.root, 'gateway'), project),
      dataDir: harness.dataDir,
      startupTimeoutSec: Math.ceil(AGENT_WAIT_MS / 1000),
    })
  })
  afterAll(async () => {
    await model?.close()
    await harness?.close()
    if (home) rmSync(home, { recursive: true, force: true })
  })

  /** Codex, told by its model to write `file` through the gateway's `fs`
   *  server and then to reply `reply`. */
  function codexWrites(file: string, content: string, reply: string) {
    const before = model.requests.length
    model.script([
      {
        type: 'tool',
        namespace: CODEX_GATEWAY_NAMESPACE,
        name: 'fs__write_file',
        arguments: { path: join(project, file), content },
      },
      { type: 'reply', text: reply },
    ])
    const run = runCodexExec({
      agents: agents!,
      environment,
      workspace: project,
      prompt: `Please write ${file}.`,
    })
    // The id the model gave the call, for what Codex sent back about it.
    const toolOutput = () => {
      const call = model.requests.slice(before).find((request) => request.step?.type === 'tool')
      return call?.callId ? model.toolOutputFor(call.callId) : undefined
    }
    /** The approval Codex's call opened, or Codex's own words if it
     *  ended without asking. */
    const approval = () =>
      Promise.race([
        nextPendingApproval(harness, new Set(), RUNTIME_READY_TIMEOUT_MS),
        run.done.then(({ code, output }) => {
          throw new Error(`Codex exited (${code}) before anything asked:\n${output}`)
        }),
      ])
    return { run, toolOutput, approval }
  }

  it('asks the person in Assent; allowed, the real server writes and Codex gets its result', async () => {
    const target = join(project, 'from-codex.txt')
    const { run, toolOutput, approval } = codexWrites(
      'from-codex.txt',
      'written through Assent',
      'Codex wrote.',
    )

    const view = await approval()
    expect(view.approval.kind).toBe('mcp-tool-call')
    expect(view.action.mcp?.serverId).toBe('fs')
    expect(view.action.toolName).toContain('write_file')
    expect(view.action.arguments).toEqual({ path: target, content: 'written through Assent' })
    // Nothing has run while the person reads.
    expect(existsSync(target)).toBe(false)

    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const { code, output } = await run.done
    expect(code, output).toBe(0)
    expect(readFileSync(target, 'utf8')).toBe('written through Assent')
    expect(toolOutput()).toContain(`Successfully wrote to ${target}`)
    expect(output).toContain('Codex wrote.')
  })

  it('denied, nothing is written and Codex gets an error naming the denial, which it reports', async () => {
    const target = join(project, 'denied-by-person.txt')
    const { run, toolOutput, approval } = codexWrites(
      'denied-by-person.txt',
      'never',
      'Codex was refused.',
    )

    const view = await approval()
    expect(view.action.arguments).toEqual({ path: target, content: 'never' })
    expect(await decide(harness, view, 'deny')).toBe(200)
    const { code, output } = await run.done
    expect(code, output).toBe(0)
    expect(existsSync(target)).toBe(false)
    const told = toolOutput() ?? ''
    expect(told).toContain(`${MCP_REFUSAL_CODES.denied}`)
    expect(told).not.toContain('Successfully wrote')
    // Codex prints the failed call for whoever runs it, then its reply.
    expect(output).toMatch(/assent\/fs__write_file \(failed\)/)
    expect(output).toContain('Codex was refused.')
  })
})
