import { rm } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxMode, ToolEffect } from '../../contracts/policy-axes.ts'
import { checkToolAccess } from './sandbox.ts'
import type { AccessCheck, AgentCeilings } from './sandbox.ts'
import { makeSandboxTree } from './test-support/sandbox-tree.ts'

let base: string
let ws: string
let outside: string
let repo: string
const fullAgent: AgentCeilings = { readOnly: false }

beforeAll(async () => {
  ;({ base, ws, outside, repo } = await makeSandboxTree())
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

function check(
  sandboxMode: SandboxMode,
  effect: ToolEffect,
  paths: string[],
  agent: AgentCeilings = fullAgent,
): Promise<AccessCheck> {
  return checkToolAccess({ sandboxMode, effect, paths, workspace: ws, agent })
}

type Want = { allowed: string[] } | { code: string }

// One row per (mode, target): what a write, and a command run in that
// directory, must get. Targets are thunks: the temp tree exists only once
// beforeAll has run.
const writeCases: Array<[SandboxMode, string, () => string, () => Want]> = [
  ['read-only', 'inside', () => 'a/new.txt', () => ({ code: 'sandbox_read_only' })],
  ['read-only', 'outside', () => path.join(outside, 'x'), () => ({ code: 'sandbox_read_only' })],
  [
    'workspace-write',
    'inside',
    () => 'a/new.txt',
    () => ({ allowed: [path.join(ws, 'a/new.txt')] }),
  ],
  [
    'workspace-write',
    'outside',
    () => path.join(outside, 'x'),
    () => ({ code: 'outside_workspace' }),
  ],
  ['workspace-write', 'symlink out', () => 'link-out/x', () => ({ code: 'outside_workspace' })],
  ['workspace-write', '..', () => 'a/../../outside/x', () => ({ code: 'invalid_path' })],
  [
    'workspace-write',
    'non-existing nested',
    () => 'n/m/o.txt',
    () => ({ allowed: [path.join(ws, 'n/m/o.txt')] }),
  ],
  [
    'external-sandbox',
    'inside',
    () => 'a/new.txt',
    () => ({ allowed: [path.join(ws, 'a/new.txt')] }),
  ],
  [
    'external-sandbox',
    'outside',
    () => path.join(outside, 'x'),
    () => ({ code: 'outside_workspace' }),
  ],
  ['external-sandbox', 'symlink out', () => 'link-out/x', () => ({ code: 'outside_workspace' })],
  ['external-sandbox', '..', () => '../outside/x', () => ({ code: 'invalid_path' })],
  [
    'danger-full-access',
    'inside',
    () => 'a/new.txt',
    () => ({ allowed: [path.join(ws, 'a/new.txt')] }),
  ],
  [
    'danger-full-access',
    'outside',
    () => path.join(outside, 'x'),
    () => ({ allowed: [path.join(outside, 'x')] }),
  ],
  [
    'danger-full-access',
    'symlink out',
    () => 'link-out/x',
    () => ({ allowed: [path.join(outside, 'x')] }),
  ],
  ['danger-full-access', '..', () => '../outside/x', () => ({ code: 'invalid_path' })],
  [
    'danger-full-access',
    'non-existing nested',
    () => path.join(outside, 'n/m'),
    () => ({ allowed: [path.join(outside, 'n/m')] }),
  ],
]

function expectOutcome(result: AccessCheck, want: Want): void {
  if ('allowed' in want) {
    expect(result).toEqual({ allowed: true, paths: want.allowed })
  } else {
    expect(result).toMatchObject({ allowed: false, code: want.code })
  }
}

describe('writes and commands by sandbox mode', () => {
  it.each(writeCases)('%s: a write to a path %s', async (mode, _name, target, want) => {
    expectOutcome(await check(mode, 'write', [target()]), want())
  })

  it.each(writeCases)('%s: a command whose cwd is %s', async (mode, _name, target, want) => {
    expectOutcome(await check(mode, 'execute', [target()]), want())
  })

  it('refuses network calls in a read-only room', async () => {
    expect(await check('read-only', 'network', [])).toMatchObject({
      allowed: false,
      code: 'sandbox_read_only',
    })
  })

  it('confines paths a network tool names under workspace-write', async () => {
    expect(await check('workspace-write', 'network', [path.join(outside, 'dl')])).toMatchObject({
      allowed: false,
      code: 'outside_workspace',
    })
  })
})

describe('reads by sandbox mode', () => {
  const modes: SandboxMode[] = [
    'read-only',
    'workspace-write',
    'external-sandbox',
    'danger-full-access',
  ]

  it.each(modes)('%s: reads inside the workspace', async (mode) => {
    expect(await check(mode, 'read', ['a/file.txt'])).toEqual({
      allowed: true,
      paths: [path.join(ws, 'a', 'file.txt')],
    })
  })

  it.each(modes)('%s: reads outside the workspace, resolved through symlinks', async (mode) => {
    expect(await check(mode, 'read', ['link-out/secret.txt'])).toEqual({
      allowed: true,
      paths: [path.join(outside, 'secret.txt')],
    })
  })

  it.each(modes)('%s: refuses a ".." read', async (mode) => {
    expect(await check(mode, 'read', ['../outside/secret.txt'])).toMatchObject({
      allowed: false,
      code: 'invalid_path',
    })
  })
})

describe('agent ceilings', () => {
  const readOnly: AgentCeilings = { readOnly: true }

  it.each(['write', 'execute', 'network'] as const)(
    'refuses %s for a read-only agent even under full access',
    async (effect) => {
      expect(await check('danger-full-access', effect, ['a/new.txt'], readOnly)).toMatchObject({
        allowed: false,
        code: 'read_only_agent',
      })
    },
  )

  it('lets a read-only agent read', async () => {
    expect(await check('danger-full-access', 'read', ['a/file.txt'], readOnly)).toEqual({
      allowed: true,
      paths: [path.join(ws, 'a', 'file.txt')],
    })
  })

  it('keeps a scoped agent inside its roots for reads', async () => {
    const scoped: AgentCeilings = { readOnly: false, allowedRepositoryRoots: [repo] }
    expect(await check('danger-full-access', 'read', ['a/file.txt'], scoped)).toMatchObject({
      allowed: false,
      code: 'outside_agent_roots',
    })
    expect(await check('workspace-write', 'read', [path.join(repo, 'readme.md')], scoped)).toEqual({
      allowed: true,
      paths: [path.join(repo, 'readme.md')],
    })
  })

  it('keeps a scoped agent inside its roots for writes under full access', async () => {
    const scoped: AgentCeilings = { readOnly: false, allowedRepositoryRoots: [repo] }
    expect(await check('danger-full-access', 'write', [path.join(repo, 'n.txt')], scoped)).toEqual({
      allowed: true,
      paths: [path.join(repo, 'n.txt')],
    })
    expect(
      await check('danger-full-access', 'write', [path.join(outside, 'n.txt')], scoped),
    ).toMatchObject({ allowed: false, code: 'outside_agent_roots' })
  })

  it('judges a symlink inside an allowed root by where it points', async () => {
    const scoped: AgentCeilings = { readOnly: false, allowedRepositoryRoots: [repo] }
    const viaLink = path.join(repo, 'link-out', 'secret.txt')
    expect(await check('danger-full-access', 'read', [viaLink], scoped)).toMatchObject({
      allowed: false,
      code: 'outside_agent_roots',
    })
  })

  it('applies the workspace rule before the agent roots under workspace-write', async () => {
    const scoped: AgentCeilings = { readOnly: false, allowedRepositoryRoots: [repo] }
    expect(
      await check('workspace-write', 'write', [path.join(repo, 'n.txt')], scoped),
    ).toMatchObject({ allowed: false, code: 'outside_workspace' })
  })

  it('allows nothing with an empty root list', async () => {
    const none: AgentCeilings = { readOnly: false, allowedRepositoryRoots: [] }
    expect(await check('danger-full-access', 'read', ['a/file.txt'], none)).toMatchObject({
      allowed: false,
      code: 'outside_agent_roots',
    })
  })

  it('ignores a relative or missing root instead of guessing', async () => {
    const odd: AgentCeilings = {
      readOnly: false,
      allowedRepositoryRoots: ['ws', path.join(base, 'missing')],
    }
    expect(await check('danger-full-access', 'read', ['a/file.txt'], odd)).toMatchObject({
      allowed: false,
      code: 'outside_agent_roots',
    })
  })
})

describe('resolution', () => {
  it('returns every resolved path in input order', async () => {
    const result = await check('danger-full-access', 'write', [
      'a/file.txt',
      'link-out/secret.txt',
      path.join(repo, 'readme.md'),
    ])
    expect(result).toEqual({
      allowed: true,
      paths: [
        path.join(ws, 'a/file.txt'),
        path.join(outside, 'secret.txt'),
        path.join(repo, 'readme.md'),
      ],
    })
  })

  it('refuses the whole call when one path escapes', async () => {
    expect(
      await check('workspace-write', 'write', ['a/file.txt', path.join(outside, 'x')]),
    ).toMatchObject({ allowed: false, code: 'outside_workspace' })
  })

  it('refuses a NUL byte', async () => {
    expect(await check('danger-full-access', 'read', ['a\0b'])).toMatchObject({
      allowed: false,
      code: 'invalid_path',
    })
  })

  it('refuses everything when the workspace is gone', async () => {
    const result = await checkToolAccess({
      sandboxMode: 'danger-full-access',
      effect: 'read',
      paths: [path.join(outside, 'secret.txt')],
      workspace: path.join(base, 'gone'),
      agent: fullAgent,
    })
    expect(result).toMatchObject({ allowed: false, code: 'invalid_path' })
  })
})

describe('what a refusal says', () => {
  const verbs: Array<[ToolEffect, string]> = [
    ['write', 'write files'],
    ['execute', 'run commands'],
    ['network', 'use the network'],
  ]

  it.each(verbs)('names the %s a read-only agent may not do', async (effect, verb) => {
    expect(await check('danger-full-access', effect, ['a'], { readOnly: true })).toEqual({
      allowed: false,
      code: 'read_only_agent',
      reason: `this agent is read-only and cannot ${verb}`,
    })
  })

  it.each(verbs)('names the %s a read-only room may not do', async (effect, verb) => {
    expect(await check('read-only', effect, ['a'])).toEqual({
      allowed: false,
      code: 'sandbox_read_only',
      reason: `the room is read-only and cannot ${verb}`,
    })
  })

  it('names the workspace it cannot resolve', async () => {
    const workspace = path.join(base, 'gone')
    expect(
      await checkToolAccess({
        sandboxMode: 'workspace-write',
        effect: 'write',
        paths: ['a'],
        workspace,
        agent: fullAgent,
      }),
    ).toEqual({
      allowed: false,
      code: 'invalid_path',
      reason: `the workspace ${workspace} cannot be resolved`,
    })
  })

  it('names the path that cannot be resolved, and why', async () => {
    expect(await check('danger-full-access', 'read', ['a\0b'])).toEqual({
      allowed: false,
      code: 'invalid_path',
      reason: 'a\0b: the path contains a NUL byte',
    })
  })

  it('names the path outside the agent roots', async () => {
    const scoped: AgentCeilings = { readOnly: false, allowedRepositoryRoots: [repo] }
    expect(await check('danger-full-access', 'read', ['a/file.txt'], scoped)).toEqual({
      allowed: false,
      code: 'outside_agent_roots',
      reason: `${path.join(ws, 'a/file.txt')} is outside the directories this agent may use`,
    })
  })
})

describe('agent roots that are relative', () => {
  it('drops a relative root even when it would name the right directory from the current one', async () => {
    // Resolved against process.cwd() this root is exactly the workspace; a
    // root that depends on where the process happens to run is no root.
    const relative = path.relative(process.cwd(), ws)
    expect(path.isAbsolute(relative)).toBe(false)
    const scoped: AgentCeilings = { readOnly: false, allowedRepositoryRoots: [relative] }
    expect(await check('danger-full-access', 'read', ['a/file.txt'], scoped)).toMatchObject({
      allowed: false,
      code: 'outside_agent_roots',
    })
    const absolute: AgentCeilings = { readOnly: false, allowedRepositoryRoots: [ws] }
    expect(await check('danger-full-access', 'read', ['a/file.txt'], absolute)).toMatchObject({
      allowed: true,
    })
  })
})
