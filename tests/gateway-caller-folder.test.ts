import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callerFolder, parseGatewayArgs } from '../src/gateway/gateway-cli.ts'
import { writeNotesConfig } from './support/mcp-gateway-harness.ts'
import { eventually } from './support/runtime-harness.ts'

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url))

describe('the gateway takes relative flags from the folder it was started in', () => {
  const ownScript = { npm_package_name: 'assent', npm_lifecycle_event: 'gateway' }

  it('believes INIT_CWD from its own npm script, which runs in the package folder', () => {
    const env = { ...ownScript, INIT_CWD: '/home/ada/project' }
    expect(callerFolder(env, '/opt/assent')).toBe('/home/ada/project')
  })

  it('ignores INIT_CWD inherited from some other npm script, or not absolute', () => {
    expect(callerFolder({ INIT_CWD: '/srv/elsewhere' }, '/home/ada/project')).toBe(
      '/home/ada/project',
    )
    const stranger = { npm_package_name: 'client', npm_lifecycle_event: 'start' }
    expect(callerFolder({ ...stranger, INIT_CWD: '/srv/x' }, '/home/ada/project')).toBe(
      '/home/ada/project',
    )
    expect(callerFolder({ ...ownScript, INIT_CWD: 'project' }, '/opt/assent')).toBe('/opt/assent')
  })

  it('resolves --config, --data-dir and the default workspace against that folder', async () => {
    const folder = await realpath(await mkdtemp(join(tmpdir(), 'assent-caller-')))
    try {
      const args = parseGatewayArgs(['--config', 'mcp.json', '--data-dir', 'data'], {}, folder)
      expect(args).toEqual({
        config: join(folder, 'mcp.json'),
        dataDir: join(folder, 'data'),
        workspace: folder,
        // Pinned at start: every call is checked against this folder.
        workspaceIdentity: { realPath: folder, dev: expect.any(String), ino: expect.any(String) },
      })
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })
})

describe('`npm run gateway -- --config mcp.json` typed in a project folder', () => {
  let folder: string
  let client: Client
  let stderr = ''

  beforeAll(async () => {
    folder = await realpath(await mkdtemp(join(tmpdir(), 'assent-caller-')))
    await mkdir(join(folder, 'data'))
    await writeNotesConfig(folder)
    // The relative path is the project's mcp.json, never the package's.
    const transport = new StdioClientTransport({
      command: 'npm',
      args: ['--prefix', PROJECT_ROOT, 'run', '--silent', 'gateway', '--'].concat([
        '--config',
        'mcp.json',
        '--data-dir',
        'data',
      ]),
      cwd: folder,
      env: { ...(process.env as Record<string, string>) },
      stderr: 'pipe',
    })
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    client = new Client({ name: 'caller-folder-test', version: '1.0.0' })
    await client.connect(transport)
  })
  afterAll(async () => {
    await client?.close()
    await rm(folder, { recursive: true, force: true })
  })

  it('serves the mcp.json and the workspace of the folder npm was run in', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'docs__read_note',
      'notes__read_note',
      'notes__write_note',
    ])
    // Logged once it serves, which a listing can beat by a moment.
    await eventually(
      () => (stderr.includes('serving 2 server(s)') ? true : undefined),
      'the gateway to say what it serves',
    )
    expect(stderr).toContain(`serving 2 server(s) for ${folder}`)
  })
})
