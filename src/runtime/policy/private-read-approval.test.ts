import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { privateReadOfApproval, type ApprovalAction } from './private-read-approval.ts'

// Which URLs in an MCP call's words are network addresses, taken out of
// the private-read judgment, and which name a place on this machine and
// are judged as one: a scheme of the server's own, or any URL of this
// machine's host, may be mapped by the server to its files.

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-private-read-url-')))
const workspace = path.join(root, 'ws')
mkdirSync(workspace)
const outside = path.join(root, 'elsewhere', 'diary.txt')
afterAll(() => rmSync(root, { recursive: true, force: true }))

function resourceRead(uri: string): ApprovalAction {
  return {
    kind: 'mcp-tool-call',
    toolName: 'resources/read',
    arguments: { uri },
    workingDirectory: workspace,
    mcp: {
      serverId: 'notes',
      serverName: 'Notes',
      toolDescription: '',
      inputSchemaHash: 'a'.repeat(64),
      definitionHash: 'b'.repeat(64),
      preview: null,
      serverTools: { names: [], hash: 'c'.repeat(64) },
    },
  }
}

describe('privateReadOfApproval, for the URLs an MCP call names', () => {
  it.each([
    'https://example.com/a',
    'HTTPS://Example.COM/docs/x',
    'wss://stream.example.org/feed',
    'git://example.com/repo.git',
    'http://[::ffff:8.8.8.8]/a',
    'https://localhost.example.com/a',
  ])('takes out a network address: %s', async (uri) => {
    expect(privateReadOfApproval(resourceRead(uri), workspace)).toBeNull()
  })

  it.each([
    `notes://localhost${outside}`,
    `notes://any-host${outside}`,
    `http://localhost${outside}`,
    `http://127.0.0.1:8080${outside}`,
    `http://[::1]${outside}`,
    // The loopback inside IPv6, which the URL parser writes in hex.
    `http://[::ffff:127.0.0.1]:8080${outside}`,
    `http://[::ffff:7f00:1]${outside}`,
    `http://[::ffff:127.9.9.9]${outside}`,
    `http://[::ffff:0.0.0.0]:8080${outside}`,
    `http://api.localhost${outside}`,
    `https://example.com/../../..${outside}`,
  ])('judges as a place on this machine: %s', async (uri) => {
    expect(privateReadOfApproval(resourceRead(uri), workspace)).not.toBeNull()
  })

  it('lets a read of the workspace by a scheme of the server’s own pass', async () => {
    const inside = path.join(workspace, 'readme.md')
    expect(privateReadOfApproval(resourceRead(`notes://${inside}`), workspace)).toBeNull()
  })
})
