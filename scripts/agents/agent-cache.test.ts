import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  findInstalledAgents,
  LOCK_STAMP_FILE,
  lockfileDigest,
  pinnedVersion,
} from './agent-cache.ts'
import { requireOrSkip } from '../../tests/support/require-or-skip.ts'

const platform = `${process.platform}-${process.arch}`
const supported = requireOrSkip(
  'an agent build for this platform',
  ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'].includes(platform)
    ? undefined
    : `none is published for ${platform}`,
  'run these tests on Linux or macOS (x64 or arm64)',
)

describe.skipIf(!supported)('finding the installed agents', () => {
  let cache: string
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), 'assent-agent-cache-'))
  })
  afterEach(() => rmSync(cache, { recursive: true, force: true }))

  function install(name: string, version: string): void {
    const file = join(cache, 'node_modules', name, 'package.json')
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, JSON.stringify({ name, version }))
  }

  function binary(...parts: string[]): string {
    const file = join(cache, 'node_modules', ...parts)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, '#!/bin/sh\n')
    chmodSync(file, 0o755)
    return file
  }

  it('says what is missing, step by step, until the pinned install is complete', () => {
    expect(findInstalledAgents(cache)).toEqual({
      missing: `@openai/codex ${pinnedVersion('@openai/codex')} is not installed in ${cache} (found none)`,
    })
    install('@openai/codex', '0.0.1')
    expect(findInstalledAgents(cache)).toMatchObject({
      missing: expect.stringContaining('(found 0.0.1)'),
    })
    install('@openai/codex', pinnedVersion('@openai/codex'))
    install('@zed-industries/codex-acp', pinnedVersion('@zed-industries/codex-acp'))
    expect(findInstalledAgents(cache)).toMatchObject({
      missing: expect.stringContaining('@zed-industries/claude-agent-acp'),
    })
    install('@zed-industries/claude-agent-acp', pinnedVersion('@zed-industries/claude-agent-acp'))
    expect(findInstalledAgents(cache)).toMatchObject({
      missing: expect.stringContaining(
        'was not installed from the current agents/package-lock.json',
      ),
    })
    writeFileSync(join(cache, LOCK_STAMP_FILE), 'another lockfile\n')
    expect(findInstalledAgents(cache)).toMatchObject({
      missing: expect.stringContaining('current agents'),
    })
    writeFileSync(join(cache, LOCK_STAMP_FILE), `${lockfileDigest()}\n`)
    expect(findInstalledAgents(cache)).toMatchObject({
      missing: expect.stringContaining('not executable'),
    })
    const triple = {
      'linux-x64': 'x86_64-unknown-linux-musl',
      'linux-arm64': 'aarch64-unknown-linux-musl',
      'darwin-x64': 'x86_64-apple-darwin',
      'darwin-arm64': 'aarch64-apple-darwin',
    }[platform] as string
    const codex = binary('@openai', `codex-${platform}`, 'vendor', triple, 'bin', 'codex')
    const codexAcp = binary('@zed-industries', `codex-acp-${platform}`, 'bin', 'codex-acp')
    expect(findInstalledAgents(cache)).toMatchObject({
      missing: expect.stringContaining('claude-agent-acp/dist/index.js is missing'),
    })
    const claudeAcp = binary('@zed-industries', 'claude-agent-acp', 'dist', 'index.js')
    expect(findInstalledAgents(cache)).toEqual({
      agents: {
        codex,
        codexAcp,
        codexResources: join(dirname(dirname(codex)), 'codex-resources'),
        claudeAcp,
      },
    })
  })
})
