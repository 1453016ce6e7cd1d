import { rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkToolAccess } from './sandbox.ts'
import { makeSandboxTree, type SandboxTree } from './test-support/sandbox-tree.ts'

// The sandbox's check against the workspace its room pinned by identity:
// a folder that is no longer that one refuses everything.

let tree: SandboxTree
const fullAgent = { readOnly: false }

beforeAll(async () => {
  tree = await makeSandboxTree()
})

afterAll(async () => {
  await rm(tree.base, { recursive: true, force: true })
})

describe('the workspace its room pinned', () => {
  const pinnedNow = async () => {
    const stats = await stat(tree.ws, { bigint: true })
    return { realPath: tree.ws, dev: String(stats.dev), ino: String(stats.ino) }
  }

  it('checks paths as usual while the workspace is still the pinned folder', async () => {
    expect(
      await checkToolAccess({
        sandboxMode: 'workspace-write',
        effect: 'write',
        paths: ['a/new.txt'],
        workspace: tree.ws,
        agent: fullAgent,
        pinnedWorkspace: await pinnedNow(),
      }),
    ).toEqual({ allowed: true, paths: [path.join(tree.ws, 'a/new.txt')] })
  })

  it.each<[string, (pinned: { realPath: string; dev: string; ino: string }) => object]>([
    ['another folder at the same path', (pinned) => ({ ...pinned, ino: `${pinned.ino}0` })],
    ['a path that leads elsewhere', (pinned) => ({ ...pinned, realPath: tree.outside })],
  ])(
    'refuses every effect, before any path is judged, when the workspace is %s',
    async (_name, moved) => {
      const pinnedWorkspace = moved(await pinnedNow()) as {
        realPath: string
        dev: string
        ino: string
      }
      for (const effect of ['read', 'write', 'execute'] as const) {
        const refused = await checkToolAccess({
          sandboxMode: 'danger-full-access',
          effect,
          paths: ['a/file.txt'],
          workspace: tree.ws,
          agent: fullAgent,
          pinnedWorkspace,
        })
        expect(refused).toMatchObject({ allowed: false, code: 'workspace_moved' })
        expect(refused.allowed === false && refused.message?.code).toMatch(/^workspace\./)
      }
    },
  )
})
