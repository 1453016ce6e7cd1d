import { existsSync } from 'node:fs'
import {
  mkdir,
  mkdtemp,
  readFile,
  realpath,
  rm,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { serveBuiltInFilesystem } from './built-in-filesystem-server.ts'

// The server's write runs only on what its preview showed: the same
// arguments, resolved to the same real paths, bound to the file the
// preview observed. The race through the whole runtime is in
// tests/mcp-write-needs-its-preview.test.ts; here each step is taken in
// order, with the link moved between the preview and the write.

let ws: string
let client: Client

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-builtin-fs-')))
  await mkdir(path.join(ws, '.git', 'hooks'), { recursive: true })
  await writeFile(path.join(ws, 'inside.txt'), 'an ordinary file\n')
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await serveBuiltInFilesystem(ws, serverSide)
  client = new Client({ name: 'test', version: '0.0.0' })
  await client.connect(clientSide)
})

afterEach(async () => {
  await client.close()
  await rm(ws, { recursive: true, force: true })
})

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
}

describe("the built-in filesystem server's write_file", () => {
  it('writes what its preview showed', async () => {
    await symlink('inside.txt', path.join(ws, 'flip.txt'))
    const args = { path: 'flip.txt', content: 'new content\n' }
    const preview = await call('write_file.preview', args)
    expect(textOf(preview)).toContain(`Replaces ${path.join(ws, 'inside.txt')}`)
    const written = await call('write_file', args)
    expect(written.isError).toBe(false)
    expect(await readFile(path.join(ws, 'inside.txt'), 'utf8')).toBe('new content\n')
  })

  it('refuses a write whose path resolves elsewhere than its preview did', async () => {
    const link = path.join(ws, 'flip.txt')
    await symlink('inside.txt', link)
    const args = { path: 'flip.txt', content: 'echo the agent ran here' }
    expect((await call('write_file.preview', args)).isError).not.toBe(true)
    await unlink(link)
    await symlink('.git/hooks/pre-commit', link)
    const written = await call('write_file', args)
    expect(written.isError).toBe(true)
    expect(textOf(written)).toContain('it did not run')
    expect(existsSync(path.join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false)
    expect(await readFile(path.join(ws, 'inside.txt'), 'utf8')).toBe('an ordinary file\n')
  })

  it('refuses a write nobody previewed, and one whose preview was used', async () => {
    const args = { path: 'inside.txt', content: 'unseen\n' }
    const unseen = await call('write_file', args)
    expect(unseen.isError).toBe(true)
    expect(await readFile(path.join(ws, 'inside.txt'), 'utf8')).toBe('an ordinary file\n')

    await call('write_file.preview', args)
    expect((await call('write_file', args)).isError).toBe(false)
    await writeFile(path.join(ws, 'inside.txt'), 'changed by the person\n')
    expect((await call('write_file', args)).isError).toBe(true)
    expect(await readFile(path.join(ws, 'inside.txt'), 'utf8')).toBe('changed by the person\n')
  })

  it('still reads without a preview', async () => {
    const read = await call('read_file', { path: 'inside.txt' })
    expect(read.isError).toBe(false)
    expect(textOf(read)).toBe('an ordinary file\n')
  })
})
