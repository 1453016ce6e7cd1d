import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AGENT_TOOL_CALL_TOOL } from '../../contracts/agent-request.ts'
import { ASSENT_OWN_WHY, keepAsAssentOwn } from './assent-own-paths.ts'
import { privateReadOfApproval } from './private-read-approval.ts'
import { privateReadReason } from './read-reach.ts'

let root: string
let ws: string
let outside: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-reach-')))
  ws = path.join(root, 'ws')
  outside = path.join(root, 'outside')
  await mkdir(ws)
  await mkdir(outside)
  await writeFile(path.join(ws, 'notes.txt'), 'x')
  await writeFile(path.join(outside, 'secret.txt'), 's')
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const reach = (requested: string, resolved: string, workspace = ws) =>
  privateReadReason({ workspace, requested: [requested], resolved: [resolved] })

describe('whether a read reaches beyond the workspace', () => {
  it('keeps a plain file inside the workspace a workspace read', async () => {
    expect(reach('notes.txt', path.join(ws, 'notes.txt'))).toBeNull()
    expect(reach('.', ws)).toBeNull()
    expect(reach('missing.txt', path.join(ws, 'missing.txt'))).toBeNull()
  })

  it('calls a path that resolves outside the workspace private', async () => {
    expect(reach(path.join(outside, 'secret.txt'), path.join(outside, 'secret.txt'))).toBe(
      `${path.join(outside, 'secret.txt')} is outside the workspace`,
    )
    // A sibling that shares the workspace's name as a prefix is outside.
    expect(reach('../ws-evil', `${ws}-evil`)).toMatch(/is outside the workspace$/)
  })

  it('calls a credential private, as asked or as resolved', async () => {
    await mkdir(path.join(ws, '.ssh'))
    expect(reach('.env', path.join(ws, '.env'))).toMatch(/^\.env: /)
    expect(reach('innocent.txt', path.join(ws, '.ssh', 'id_ed25519'))).toMatch(/\.ssh/)
    expect(reach('.ssh/id_ed25519', path.join(ws, 'elsewhere.txt'))).toMatch(/^\.ssh/)
  })

  it("calls Assent's own files private, in the workspace too", async () => {
    // A data folder kept in the workspace (a checkout's development data).
    const data = path.join(ws, 'assent-data')
    await mkdir(data)
    await writeFile(path.join(data, 'agents.json'), '{}')
    expect(reach('assent-data/agents.json', path.join(data, 'agents.json'))).toBeNull()
    keepAsAssentOwn([data])
    expect(reach('assent-data/agents.json', path.join(data, 'agents.json'))).toBe(
      `${path.join(data, 'agents.json')}: ${ASSENT_OWN_WHY}`,
    )
    expect(reach('notes.txt', path.join(ws, 'notes.txt'))).toBeNull()
  })

  it('calls a file with another name (a hard link) private, wherever the other name is', async () => {
    await link(path.join(outside, 'secret.txt'), path.join(ws, 'hl.txt'))
    expect(reach('hl.txt', path.join(ws, 'hl.txt'))).toBe(
      `${path.join(ws, 'hl.txt')} has 2 names (hard links), which may lead outside the workspace`,
    )
  })

  it('judges a symbolic link inside the workspace by where it leads', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'))
    expect(reach('link.txt', await realpath(path.join(ws, 'link.txt')))).toMatch(
      /is outside the workspace$/,
    )
  })

  it('does not count a directory’s links, which every directory has', async () => {
    await mkdir(path.join(ws, 'sub', 'inner'), { recursive: true })
    expect(reach('sub', path.join(ws, 'sub'))).toBeNull()
  })

  it('fails closed when the workspace cannot be resolved', async () => {
    const gone = path.join(root, 'gone')
    expect(reach('a', path.join(gone, 'a'), gone)).toBe(`the workspace ${gone} cannot be resolved`)
  })

  it('checks every path of the call, not only the first', async () => {
    expect(
      privateReadReason({
        workspace: ws,
        requested: ['notes.txt', 'x'],
        resolved: [path.join(ws, 'notes.txt'), path.join(outside, 'secret.txt')],
      }),
    ).toMatch(/is outside the workspace$/)
  })

  it("counts a server's own folder inside only where it could be a workspace and does not hold this one", async () => {
    const read = (alsoInside: string, file = path.join(outside, 'secret.txt')) =>
      privateReadReason({
        workspace: ws,
        alsoInside: [alsoInside],
        requested: [file],
        resolved: [file],
      })
    // A project folder beside the workspace: its reads are the server's own.
    expect(read(outside)).toBeNull()
    // `/` (a server started where Claude Desktop starts the gateway), which
    // the workspace rule refuses, and the folder that holds the workspace:
    // neither makes a read of everything a workspace read.
    expect(read('/')).toMatch(/is outside the workspace$/)
    expect(read(root)).toMatch(/is outside the workspace$/)
    // The home folder itself and a system folder, which hold other projects
    // and the person's files but not this workspace: refused as the rule
    // refuses them as a workspace.
    expect(read(os.homedir(), path.join(os.homedir(), 'diary.txt'))).toMatch(
      /outside the workspace$/,
    )
    expect(read('/usr', '/usr/share/dict/words')).toMatch(/is outside the workspace$/)
  })

  it("leaves a secret's name to the person-only rule when asked to (an MCP call's words)", async () => {
    const input = { workspace: ws, requested: ['.env'], resolved: [path.join(ws, '.env')] }
    expect(privateReadReason(input)).toMatch(/^\.env: /)
    expect(privateReadReason({ ...input, secretNames: false })).toBeNull()
  })
})

describe('whether a stored approval is a private read, whichever door opened it', () => {
  const HASH = 'a'.repeat(64)
  const mcp = (args: Record<string, unknown>, serverFolder?: string) =>
    privateReadOfApproval(
      {
        kind: 'mcp-tool-call',
        toolName: 'fetch',
        arguments: args,
        workingDirectory: ws,
        mcp: {
          serverId: 'files',
          serverName: 'Files',
          toolDescription: '',
          inputSchemaHash: HASH,
          definitionHash: HASH,
          preview: null,
          ...(serverFolder === undefined ? {} : { serverFolder }),
        },
      },
      ws,
    )

  it('reads every word of an MCP call as a place it may read', async () => {
    expect(mcp({ uri: `file://${outside}/secret.txt` })).toMatch(/outside the workspace$/)
    expect(mcp({ query: `compare notes.txt with ${outside}/secret.txt` })).toMatch(
      /outside the workspace$/,
    )
    expect(mcp({ path: '../outside/secret.txt' })).toMatch(/outside the workspace$/)
    expect(mcp({ uri: `file://${ws}/notes.txt`, note: 'see notes.txt' })).toBeNull()
  })

  it("takes the server's own folder as inside, and no other", async () => {
    expect(mcp({ path: `${outside}/secret.txt` }, outside)).toBeNull()
    expect(mcp({ path: `${outside}/secret.txt` }, path.join(root, 'gone'))).toMatch(
      /outside the workspace$/,
    )
  })

  it('does not take a network URL for a place, but a URI without a host is one', async () => {
    expect(mcp({ url: 'https://example.com/a/b?c=d', also: 'ws://host:8080/x' })).toBeNull()
    expect(mcp({ uri: 'custom:///etc/passwd' })).toMatch(/outside the workspace$/)
  })

  it('fails closed on a place that cannot be resolved', async () => {
    const deep = Array.from({ length: 70 }, (_, i) => `d${i}`).join('/')
    expect(mcp({ path: deep })).toMatch(/cannot be resolved$/)
  })

  it("judges a built-in read by name too, and an external agent's tool by every word", async () => {
    const read = { kind: 'read', toolName: 'read_file', workingDirectory: ws } as const
    expect(privateReadOfApproval({ ...read, arguments: { path: '.env' } }, ws)).toMatch(/^\.env: /)
    expect(privateReadOfApproval({ ...read, arguments: { path: 'notes.txt' } }, ws)).toBe(null)
    const agent = { id: 'acp', name: 'An agent', protocol: 'acp' }
    const tool = (input: unknown) =>
      privateReadOfApproval(
        {
          kind: 'run-command',
          toolName: AGENT_TOOL_CALL_TOOL,
          arguments: { agent, toolKind: 'read', title: 'Read', input },
          workingDirectory: ws,
        },
        ws,
      )
    expect(tool({ file_path: `${outside}/secret.txt` })).toMatch(/outside the workspace$/)
    expect(tool({ file_path: 'notes.txt' })).toBeNull()
  })

  it('leaves a command, which is no read, to other rules', async () => {
    const command = { kind: 'run-command', workingDirectory: ws } as const
    expect(
      privateReadOfApproval(
        { ...command, toolName: 'run_command', arguments: { argv: ['cat', `${outside}/x`] } },
        ws,
      ),
    ).toBeNull()
  })
})

describe('a read that may take a folder whole', () => {
  const whole = (folder: string, foldersReadWhole?: boolean) =>
    privateReadReason({
      workspace: ws,
      requested: [folder],
      resolved: [folder],
      ...(foldersReadWhole === undefined ? {} : { foldersReadWhole }),
    })

  it('reaches where a link in the folder leads, only when it may be read whole', async () => {
    const docs = path.join(ws, 'docs')
    await mkdir(docs)
    await symlink(outside, path.join(docs, 'out'))
    expect(whole(docs, true)).toBe(
      `${path.join(docs, 'out')} leads outside the workspace, to ${outside}; a read of the folder that follows links reads it`,
    )
    // One file opened, or a folder listed without following its links.
    expect(whole(docs, false)).toBeNull()
    expect(whole(docs)).toBeNull()
  })

  it('stays a workspace read when every link in the folder stays inside', async () => {
    const docs = path.join(ws, 'docs')
    await mkdir(docs)
    await symlink(path.join(ws, 'notes.txt'), path.join(docs, 'notes'))
    expect(whole(docs, true)).toBeNull()
    // Found nothing there, the rules after it still hold.
    expect(whole(path.join(ws, '.env'), true)).toMatch(/\.env: /)
  })
})
