import { lstat, mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxMode, ToolEffect } from '../src/contracts/policy-axes.ts'
import { checkToolAccess } from '../src/runtime/policy/sandbox.ts'
import { scaledMs } from '../scripts/test-timing.ts'

// The broad containment fuzz (the colocated path-containment test holds the
// focused cases): thousands of generated paths through checkToolAccess under
// the confining sandbox modes, judged by an oracle that shares no code with
// src/runtime/policy, and by effect: every path the check allows for a write
// is written to, and the tree outside the workspace must not change.

const RUNS = process.env.ASSENT_STRESS === '1' ? 20_000 : 3_000

let root: string
let ws: string
let outside: string

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'assent-path-fuzz-')))
  ws = path.join(root, 'ws')
  outside = path.join(root, 'outside')
  await mkdir(path.join(ws, 'sub', 'deep'), { recursive: true })
  await mkdir(outside)
  // Siblings that a prefix, case-folding or look-alike comparison would
  // mistake for the workspace.
  for (const sibling of ['ws-evil', 'WS', 'Ws', 'ｗｓ', 'ws\u200b', 'ws.']) {
    await mkdir(path.join(root, sibling))
  }
  await writeFile(path.join(outside, 'secret.txt'), 'outside')
  await writeFile(path.join(ws, 'file.txt'), 'inside')
  const link = (target: string, at: string) => symlink(target, path.join(ws, at))
  await link(outside, 'link-out')
  await link(path.join(outside, 'secret.txt'), 'link-file-out')
  await link(path.join(ws, 'sub'), 'link-in')
  await link('..', 'link-parent')
  await link('/', 'link-abs-root')
  await link('../../outside', 'sub/link-up')
  await link(path.join(outside, 'not-yet.txt'), 'dangling-out')
  await link(path.join(outside, 'not-yet-dir', 'f'), 'dangling-deep-out')
  await link(path.join(ws, 'sub', 'later.txt'), 'dangling-in')
  await link('sub/../../outside/via-dotdot.txt', 'dangling-dotdot')
  await link(path.join(ws, 'hop2'), 'hop1')
  await link(path.join(ws, 'link-out'), 'hop2')
  await link(path.join(ws, 'loop-b'), 'loop-a')
  await link(path.join(ws, 'loop-a'), 'loop-b')
  // A link outside that points into the workspace: paths through it land
  // inside and may be allowed.
  await symlink(ws, path.join(outside, 'link-into-ws'))
  // The workspace named through a symlink, as a room might store it.
  await symlink(ws, path.join(root, 'ws-link'))
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

/** Names that are just names: no traversal, no symlink. Look-alikes of `..`
 *  and of other names are here because to the file system they are plain. */
const PLAIN_SEGMENTS = [
  'sub',
  'deep',
  'new',
  'file.txt',
  'a b',
  '-',
  '.hidden',
  '...',
  '..foo',
  'foo..',
  '．．',
  '‥',
  '\u2024\u2024',
  '.\u200b.',
  'ｓｕｂ',
  'Sub',
  'SUB',
  'ws',
  'WS',
  '%2e%2e',
  '%2f',
  'sub\\new',
  'é',
  'e\u0301',
]
const TRAVERSAL_SEGMENTS = ['..', '.', '..\\..', '\\..', '..\\']
const LINK_SEGMENTS = [
  'link-out',
  'link-file-out',
  'link-in',
  'link-parent',
  'link-abs-root',
  'link-up',
  'dangling-out',
  'dangling-deep-out',
  'dangling-in',
  'dangling-dotdot',
  'hop1',
  'loop-a',
]

type PrefixKind = 'relative' | 'workspace' | 'other'

const prefixArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'relative' as PrefixKind, make: () => '' }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      { kind: 'workspace' as PrefixKind, make: () => `${ws}/` },
      { kind: 'workspace' as PrefixKind, make: () => `${root}//ws/` },
      { kind: 'workspace' as PrefixKind, make: () => `${ws}/./` },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      { kind: 'other' as PrefixKind, make: () => '/' },
      { kind: 'other' as PrefixKind, make: () => `${root}/` },
      { kind: 'other' as PrefixKind, make: () => `${outside}/` },
      { kind: 'other' as PrefixKind, make: () => `${root}/ws-evil/` },
      { kind: 'other' as PrefixKind, make: () => `${root}/WS/` },
      { kind: 'other' as PrefixKind, make: () => `${root}/Ws/` },
      { kind: 'other' as PrefixKind, make: () => `${root}/ｗｓ/` },
      { kind: 'other' as PrefixKind, make: () => `${root}/ws\u200b/` },
      { kind: 'other' as PrefixKind, make: () => `${root}/ws./` },
      { kind: 'other' as PrefixKind, make: () => `${ws}/../outside/` },
      { kind: 'other' as PrefixKind, make: () => `${root}/ws-link/` },
      { kind: 'other' as PrefixKind, make: () => `${outside}/link-into-ws/` },
      { kind: 'other' as PrefixKind, make: () => `${ws.toUpperCase()}/` },
    ),
  },
)

const segmentArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PLAIN_SEGMENTS) },
  { weight: 3, arbitrary: fc.constantFrom(...TRAVERSAL_SEGMENTS) },
  { weight: 3, arbitrary: fc.constantFrom(...LINK_SEGMENTS) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }) },
)

interface PathCase {
  requested: string
  /** Built only from plain names under the workspace: must be allowed. */
  plainInside: boolean
}

const pathCaseArb: fc.Arbitrary<PathCase> = fc
  .record({
    prefix: prefixArb,
    segments: fc.array(segmentArb, { minLength: 0, maxLength: 6 }),
    separator: fc.constantFrom('/', '/', '/', '//', '\\'),
    trailing: fc.constantFrom('', '', '/', '//', '/.', '\\'),
    nul: fc.oneof(
      { weight: 40, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
  })
  .map(({ prefix, segments, separator, trailing, nul }) => {
    const body = segments.join(separator)
    const requested = `${prefix.make()}${body}${segments.length > 0 ? trailing : ''}${nul ? '\0x' : ''}`
    const plainInside =
      prefix.kind !== 'other' &&
      !nul &&
      segments.every((segment) => PLAIN_SEGMENTS.includes(segment)) &&
      // A backslash is a plain character on POSIX, but the containment check
      // refuses `..` between backslashes too, which plain names never form.
      separator !== '\\'
    return { requested, plainInside }
  })

/**
 * Independent oracle: `p` is a normalised absolute path under the real
 * workspace, and the deepest part of it that exists (followed through any
 * symlink) is the workspace or inside it. A path whose deepest existing part
 * is a dangling symlink is outside: writing there would follow the link.
 */
async function landsInside(realWs: string, p: string): Promise<boolean> {
  if (!path.isAbsolute(p) || path.normalize(p) !== p) return false
  const within = (candidate: string) =>
    candidate === realWs || candidate.startsWith(`${realWs}${path.sep}`)
  if (!within(p)) return false
  for (let current = p; ; current = path.dirname(current)) {
    try {
      return within(await realpath(current))
    } catch {
      // Missing: a symlink here would be dangling, which a write follows.
      try {
        if ((await lstat(current)).isSymbolicLink()) return false
      } catch {
        // Not there at all: judge its parent.
      }
    }
    if (path.dirname(current) === current) return false
  }
}

/** Every entry under the temp root except the workspace, with its type and
 *  size: a write that escaped the workspace changes it. */
async function outsideSnapshot(): Promise<string> {
  const entries: string[] = []
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (full === ws) continue
      const stats = await lstat(full)
      entries.push(
        `${full} ${stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'dir' : 'file'} ${stats.size}`,
      )
      if (entry.isDirectory()) await walk(full)
    }
  }
  await walk(root)
  return entries.sort().join('\n')
}

/** Acts on the allowed path the way the write tools do: on the resolved
 *  path, creating missing parents. Failures (a file where a directory is
 *  needed) are fine; escaping is not, and the snapshot shows it. */
async function writeAt(resolved: string): Promise<void> {
  try {
    await mkdir(path.dirname(resolved), { recursive: true })
    await writeFile(resolved, 'written by path-fuzz')
  } catch {
    // EISDIR, ENOTDIR, EEXIST: refused by the file system, which is fine.
  }
}

describe('workspace containment under generated paths', () => {
  it(
    'never allows a write, command or network path outside the workspace, and allows plain names inside',
    { timeout: scaledMs(300_000) },
    async () => {
      const realWs = await realpath(ws)
      const before = await outsideSnapshot()
      const tally = { allowed: 0, refused: 0, plainAllowed: 0, written: 0 }
      await fc.assert(
        fc.asyncProperty(
          pathCaseArb,
          fc.constantFrom<ToolEffect>('write', 'write', 'execute', 'network'),
          fc.constantFrom<SandboxMode>('workspace-write', 'external-sandbox'),
          fc.constantFrom(ws, path.join(root, 'ws-link'), `${ws}/`),
          async (pathCase, effect, sandboxMode, workspace) => {
            const check = await checkToolAccess({
              sandboxMode,
              effect,
              paths: [pathCase.requested],
              workspace,
              agent: { readOnly: false },
            })
            if (!check.allowed) {
              tally.refused += 1
              expect(pathCase.plainInside, `refused a plain path inside: ${check.reason}`).toBe(
                false,
              )
              return
            }
            tally.allowed += 1
            expect(check.paths).toHaveLength(1)
            const resolved = check.paths[0] ?? ''
            expect(await landsInside(realWs, resolved), `${pathCase.requested} → ${resolved}`).toBe(
              true,
            )
            if (pathCase.plainInside) {
              tally.plainAllowed += 1
              expect(resolved).toBe(path.resolve(realWs, pathCase.requested))
            }
            if (effect === 'write') {
              await writeAt(resolved)
              tally.written += 1
              expect(await outsideSnapshot(), `writing ${resolved}`).toBe(before)
            }
          },
        ),
        { numRuns: RUNS },
      )
      // The property is not vacuous: both answers were exercised.
      expect(tally.allowed).toBeGreaterThan(RUNS / 10)
      expect(tally.refused).toBeGreaterThan(RUNS / 10)
      expect(tally.plainAllowed).toBeGreaterThan(RUNS / 20)
      console.log(
        `path-fuzz: ${RUNS} paths, ${tally.allowed} allowed (${tally.written} written), ${tally.refused} refused`,
      )
    },
  )

  it(
    'keeps reads of an agent with directory ceilings inside its roots, in every sandbox mode',
    { timeout: scaledMs(300_000) },
    async () => {
      const realWs = await realpath(ws)
      let allowed = 0
      await fc.assert(
        fc.asyncProperty(
          pathCaseArb,
          fc.constantFrom<SandboxMode>('danger-full-access', 'workspace-write', 'read-only'),
          async (pathCase, sandboxMode) => {
            const check = await checkToolAccess({
              sandboxMode,
              effect: 'read',
              paths: [pathCase.requested],
              workspace: ws,
              agent: { readOnly: true, allowedRepositoryRoots: [path.join(root, 'ws-link')] },
            })
            if (!check.allowed) {
              expect(pathCase.plainInside, `refused a plain path inside: ${check.reason}`).toBe(
                false,
              )
              return
            }
            allowed += 1
            expect(await landsInside(realWs, check.paths[0] ?? ''), pathCase.requested).toBe(true)
          },
        ),
        { numRuns: Math.ceil(RUNS / 2) },
      )
      expect(allowed).toBeGreaterThan(RUNS / 20)
    },
  )
})
