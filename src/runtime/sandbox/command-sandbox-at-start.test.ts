import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCommandTool } from '../tools/run-command.ts'
import { commandSandboxAtStart } from './command-sandbox-at-start.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

const HAS_BWRAP = await bubblewrapRequired()

let base: string
let ws: string
let dataDir: string
let mcpConfig: string

const scratch = varTmpFolder('assent-at-start-')

beforeAll(async () => {
  base = scratch()
  ws = path.join(base, 'workspace')
  dataDir = path.join(base, 'data')
  mcpConfig = path.join(base, 'config', 'mcp.json')
  await mkdir(ws)
  await mkdir(dataDir)
  await mkdir(path.dirname(mcpConfig))
  await writeFile(path.join(dataDir, 'gateway.json'), 'GATEWAY-CREDENTIAL')
  await writeFile(mcpConfig, 'MCP-SERVER-TOKEN')
})

describe.runIf(HAS_BWRAP)('the runtime’s command sandbox', () => {
  it('hides the data folder and a config file kept elsewhere from every command', async () => {
    const logged: string[] = []
    const sandbox = commandSandboxAtStart({
      dataDir,
      mcpConfigPath: mcpConfig,
      agentsConfigPath: undefined,
      env: process.env,
      log: (line) => logged.push(line),
    })
    const result = await runCommandTool.run(
      { argv: ['sh', '-c', `cat ${dataDir}/gateway.json; cat ${mcpConfig}`] },
      {
        workspace: ws,
        resolvedPaths: [ws],
        timeoutMs: 30_000,
        command: { sandbox, sandboxMode: 'workspace-write', extraWritableRoots: [] },
      },
    )
    expect(result.ok).toBe(false)
    expect(result.output).not.toContain('GATEWAY-CREDENTIAL')
    expect(result.output).not.toContain('MCP-SERVER-TOKEN')
    expect(logged).toEqual([])
  })
})

describe('the uncontained setting', () => {
  const withoutBwrap = { ...process.env, PATH: '/nonexistent-assent-bin' }

  it('is off unless set to 1, and then commands are refused and the start log says so', async () => {
    const logged: string[] = []
    const sandbox = commandSandboxAtStart({
      dataDir,
      mcpConfigPath: mcpConfig,
      agentsConfigPath: undefined,
      env: { ...withoutBwrap, ASSENT_ALLOW_UNCONTAINED_COMMANDS: 'yes' },
      systemBinFolders: [],
      log: (line) => logged.push(line),
    })
    const decided = await sandbox.containmentFor({
      sandboxMode: 'workspace-write',
      workspace: ws,
      extraWritableRoots: [],
    })
    expect(decided).toMatchObject({ ok: false, code: 'sandbox_unavailable' })
    await expect.poll(() => logged.join('\n')).toContain('will be refused')
    expect(logged.join('\n')).not.toContain('WARNING')
  })

  it('when set, lets commands run uncontained, said loudly at start', async () => {
    const logged: string[] = []
    const sandbox = commandSandboxAtStart({
      dataDir,
      mcpConfigPath: mcpConfig,
      agentsConfigPath: undefined,
      env: { ...withoutBwrap, ASSENT_ALLOW_UNCONTAINED_COMMANDS: '1' },
      systemBinFolders: [],
      log: (line) => logged.push(line),
    })
    expect(logged[0]).toContain('NOT CONTAINED')
    expect(
      await sandbox.containmentFor({
        sandboxMode: 'workspace-write',
        workspace: ws,
        extraWritableRoots: [],
      }),
    ).toEqual({ ok: true, containment: { contained: false, why: 'uncontained-setting' } })
  })
})
