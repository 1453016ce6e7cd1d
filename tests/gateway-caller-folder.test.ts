import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callerFolder, GatewayUsageError, parseGatewayArgs } from '../src/gateway/gateway-cli.ts'
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

describe('the gateway serves no folder a room could not have', () => {
  // An MCP client that starts the gateway in `/` (Claude Desktop does)
  // without --workspace would otherwise serve the whole disk.
  it.each([
    [
      'the file-system root, as the folder it was started in',
      [],
      '/',
      /--workspace \/ \(the current directory: give --workspace\) cannot be a workspace: \/ is the file-system root/,
    ],
    [
      'the file-system root, given',
      ['--workspace', '/'],
      '/tmp',
      /--workspace \/ cannot be a workspace: \/ is the file-system root/,
    ],
    ['the home folder itself', ['--workspace', homedir()], '/tmp', /cannot be a workspace: .*home/],
    ['a system folder', ['--workspace', '/etc'], '/tmp', /--workspace \/etc cannot be a workspace/],
    [
      'a folder that is not there',
      ['--workspace', '/no/such/folder'],
      '/tmp',
      /--workspace \/no\/such\/folder is not an existing directory/,
    ],
  ])('refuses %s', (_label, flags, cwd, message) => {
    const parse = () => parseGatewayArgs(['--config', 'mcp.json', ...flags], {}, cwd)
    expect(parse).toThrow(GatewayUsageError)
    expect(parse).toThrow(message)
  })
})

describe('the gateway serves only a config every door keeps for the person', () => {
  let folder: string
  beforeAll(async () => {
    folder = await realpath(await mkdtemp(join(tmpdir(), 'assent-gateway-config-')))
    await mkdir(join(folder, 'other'))
    await mkdir(join(folder, '.vscode'))
    for (const name of ['servers.json', 'other/mcp.json', 'mcp.json']) {
      await writeFile(join(folder, name), '{"servers": []}')
    }
  })
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true })
  })

  // Each row: the config given, what is on disk first (links), and what the
  // refusal says, or null where it is served.
  const table: Array<[string, string, Array<[string, string]>, RegExp | null]> = [
    ['a file named mcp.json', 'mcp.json', [], null],
    ['one not there yet, named mcp.json', 'new/mcp.json', [], null],
    ['one named so in capitals', 'MCP.JSON', [], null],
    ["an editor's MCP config", '.vscode/mcp.json', [], null],
    ['a link named mcp.json to another mcp.json', 'link/mcp.json', [['link', 'other']], null],
    [
      'a file under another name',
      'servers.json',
      [],
      /^--config servers\.json: the gateway starts whatever its config names, so it serves only a file every door of Assent keeps for the person to change\. Name it mcp\.json$/,
    ],
    [
      'a name that only starts like it',
      'mcp.json.bak',
      [],
      /keeps for the person to change\. Name/,
    ],
    [
      'a link named mcp.json to a file under another name',
      'linked/mcp.json',
      [['linked/mcp.json', 'servers.json']],
      /to change \(it is .*\/servers\.json\)\. Name it mcp\.json$/,
    ],
    [
      'a link named mcp.json to nothing, which any file made there would become',
      'dangling/mcp.json',
      [['dangling/mcp.json', 'later.json']],
      /to change \(it is a link to nothing\)\. Name it mcp\.json$/,
    ],
  ]

  it.each(table)('%s', async (_label, config, links, refusal) => {
    for (const [link, target] of links) {
      await mkdir(dirname(join(folder, link)), { recursive: true })
      await symlink(join(folder, target), join(folder, link))
    }
    const parse = () => parseGatewayArgs(['--config', config], {}, folder)
    if (refusal === null) expect(parse().config).toBe(join(folder, config))
    else {
      expect(parse).toThrow(GatewayUsageError)
      expect(parse).toThrow(refusal)
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
