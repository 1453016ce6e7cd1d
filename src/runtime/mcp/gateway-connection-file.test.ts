import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import {
  GATEWAY_CONNECTION_FILE_NAME,
  type GatewayConnectionFile,
} from '../../contracts/mcp-gateway.ts'
import {
  GatewayConnectionFileReader,
  newGatewayCredential,
  writeGatewayConnectionFile,
} from './gateway-connection-file.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'assent-connection-file-'))
  dirs.push(dir)
  return dir
}

function runtimeFile(port: number): GatewayConnectionFile {
  return {
    version: 1,
    port,
    instanceId: `instance-${port}`,
    gatewayCredential: newGatewayCredential(),
    pid: 4242,
  }
}

/** A reader that has read the file of a runtime on port 40 001. */
function readerOfARuntime(dir: string): GatewayConnectionFileReader {
  writeGatewayConnectionFile(dir, runtimeFile(40_001))
  const reader = new GatewayConnectionFileReader(dir)
  reader.read()
  return reader
}

it('answers from the last read while the file is the same one', () => {
  const dir = dataDir()
  const first = runtimeFile(40_001)
  writeGatewayConnectionFile(dir, first)
  const reader = new GatewayConnectionFileReader(dir)
  expect(reader.read()).toEqual(first)
  expect(reader.read()).toBe(reader.read())
})

it('finds a restarted runtime: its new port and credential', () => {
  const dir = dataDir()
  const reader = readerOfARuntime(dir)
  const restarted = runtimeFile(40_002)
  writeGatewayConnectionFile(dir, restarted)
  expect(reader.read()).toEqual(restarted)
})

it('reads a file changed in place again', () => {
  const dir = dataDir()
  const reader = readerOfARuntime(dir)
  const edited = runtimeFile(40_003)
  // Same inode, other content: an in-place write, not the runtime's rename.
  writeFileSync(join(dir, GATEWAY_CONNECTION_FILE_NAME), JSON.stringify(edited))
  expect(reader.read()).toEqual(edited)
})

it('never answers from memory once the file is gone or no longer valid', () => {
  const dir = dataDir()
  const reader = readerOfARuntime(dir)
  const path = join(dir, GATEWAY_CONNECTION_FILE_NAME)
  writeFileSync(path, JSON.stringify({ version: 1, port: 'not a port' }))
  expect(() => reader.read()).toThrow(/not a valid gateway connection file/)
  rmSync(path)
  expect(() => reader.read()).toThrow(/no running Assent runtime found/)
})
