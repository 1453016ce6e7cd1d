import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import {
  grantThatMayAnswer,
  mcpTouch,
  personOnlyReason,
  type ActionTouch,
} from '../src/runtime/policy/person-only.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import {
  agentCommandRequests,
  agentFileChangeRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { realGit } from './support/real-git.ts'

/**
 * A `..` after a link goes up from where the link leads, as the kernel
 * takes a path: with `lnk -> .git/hooks/sub`, `cp x lnk/../pre-commit`
 * writes `.git/hooks/pre-commit`, where the path tidied first (Node's
 * `path.resolve`) is `pre-commit` at the workspace's top. One table of
 * such paths into git's places, each checked with a real `cp`, walked
 * through every door that may answer a write to one without the person:
 * a grant on an MCP server's file or shell tool (in a room or through the
 * gateway, which ask the same rule), and the reviewer and the webhook
 * that allow everything for an external agent's command (Codex's and an
 * ACP agent's). Assent's own tools and an external agent's file change
 * are refused a path with a `..` before any door, and its command sandbox
 * keeps git's places read-only. A control, a `..` after a link to an ordinary folder, is
 * answered at every door.
 */

/** Each row: the path written, and where the kernel writes it. */
const PATHS: ReadonlyArray<readonly [string, string]> = [
  ['lnk/../pre-commit', '.git/hooks/pre-commit'],
  ['lnk/../../config', '.git/config'],
  ['lnk/./../post-merge', '.git/hooks/post-merge'],
  ['docs/up/../../hooks/pre-push', '.git/hooks/pre-push'],
  ['hl/../pre-commit', 'tools/h/pre-commit'],
]
const CONTROL: readonly [string, string] = ['plain/../ok.txt', 'docs/ok.txt']

const MAC = new IntegrityMac(Buffer.alloc(32, 37))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }
const ORIGINAL = 'original\n'

/** A repository whose config moves its hooks to `tools/h`, with links
 *  into its places: `lnk -> .git/hooks/sub`, `docs/up -> ../.git/hooks/sub`
 *  and `hl -> tools/h/sub`, and `plain -> docs/sub`, each row's file
 *  holding `ORIGINAL`, and a file `x` to copy. */
function layRepository(root: string, workspace: string): void {
  realGit(root, root, 'init', '-q', workspace)
  realGit(root, workspace, 'config', 'core.hooksPath', 'tools/h')
  for (const folder of ['.git/hooks/sub', 'tools/h/sub', 'docs/sub']) {
    mkdirSync(join(workspace, folder), { recursive: true })
  }
  symlinkSync('.git/hooks/sub', join(workspace, 'lnk'))
  symlinkSync('../.git/hooks/sub', join(workspace, 'docs/up'))
  symlinkSync('tools/h/sub', join(workspace, 'hl'))
  symlinkSync('docs/sub', join(workspace, 'plain'))
  for (const [, lands] of [...PATHS, CONTROL]) {
    if (lands !== '.git/config') writeFileSync(join(workspace, lands), ORIGINAL)
  }
  writeFileSync(join(workspace, 'x'), 'copied\n')
}

/** The path as a door sees it: relative, or absolute as written. */
const absolute = (workspace: string, written: string) => `${workspace}/${written}`

describe('the rule every door applies', () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const touches = (written: string): ActionTouch[] => {
    const workspace = place.workspace
    return [written, absolute(workspace, written)].flatMap((path) => [
      mcpTouch(
        { serverId: 'files', toolName: 'write_file', arguments: { path, content: 'x' } },
        workspace,
      ),
      mcpTouch(
        { serverId: 'shell', toolName: 'run', arguments: { command: `cp x ${path}` } },
        workspace,
      ),
    ])
  }

  beforeAll(() => {
    place = askerWorldInTempWorkspace('assent-up-after-link-rule-', MAC, AGENT)
    layRepository(place.root, place.workspace)
  })
  afterAll(() => place.dispose())

  it.each(PATHS)('no grant answers a write to %s (%s)', (written) => {
    for (const touch of touches(written)) {
      expect(personOnlyReason(touch), JSON.stringify(touch.arguments)).toMatchObject({
        class: 'git',
      })
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
  })

  it('control: a grant answers a write through a link to an ordinary folder', () => {
    for (const touch of touches(CONTROL[0])) {
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBe('grant')
    }
  })
})

describe('a script a hook manager’s config names through a link and a ..', () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  beforeAll(() => {
    place = askerWorldInTempWorkspace('assent-up-after-link-config-', MAC, AGENT)
    layRepository(place.root, place.workspace)
    const workspace = place.workspace
    // `hs -> scripts/sub`: `./hs/../check.sh` runs `scripts/check.sh`,
    // where the path tidied first is `check.sh` at the top.
    mkdirSync(join(workspace, 'scripts/sub'), { recursive: true })
    symlinkSync('scripts/sub', join(workspace, 'hs'))
    writeFileSync(join(workspace, 'scripts/check.sh'), '#!/bin/sh\necho checked\n', {
      mode: 0o755,
    })
    writeFileSync(
      join(workspace, '.pre-commit-config.yaml'),
      'repos:\n  - repo: local\n    hooks:\n      - id: check\n        entry: ./hs/../check.sh\n        language: script\n',
    )
  })
  afterAll(() => place.dispose())

  it('is what the kernel runs, and no grant answers a write to it', () => {
    const workspace = place.workspace
    expect(execFileSync('sh', ['-c', './hs/../check.sh'], { cwd: workspace }).toString()).toBe(
      'checked\n',
    )
    for (const path of ['scripts/check.sh', `${workspace}/scripts/check.sh`]) {
      const touch = mcpTouch(
        { serverId: 'files', toolName: 'write_file', arguments: { path, content: 'x' } },
        workspace,
      )
      expect(personOnlyReason(touch), path).not.toBeNull()
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
  })

  it('is left to the person by the reviewer and the webhook for an agent’s command writing it', async () => {
    await commandLeftToThePersonByEach(place.world, 'cp x scripts/check.sh', place.workspace)
  })
})

describe("an external agent's write, and what cp does with each path", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-up-after-link-', MAC, AGENT)
    layRepository(place.root, place.workspace)
  })
  afterEach(() => place.dispose())

  it.each([...PATHS, CONTROL])('cp writes %s to %s', (written, lands) => {
    execFileSync('cp', ['x', written], { cwd: place.workspace })
    expect(readFileSync(join(place.workspace, lands), 'utf8')).toBe('copied\n')
  })

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a write through a link to an ordinary folder',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      await answersEach(asker, agentCommandRequests(`cp x ${CONTROL[0]}`, place.workspace))
    },
  )

  it.each(PATHS)(
    'is left to the person by the reviewer and the webhook: a write to %s',
    async (written) => {
      await commandLeftToThePersonByEach(place.world, `cp x ${written}`, place.workspace)
    },
  )

  it.each(ALLOWING_DECIDERS)(
    "$by is never asked about an agent's file change naming a ..: it is refused first",
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      const [written] = PATHS[0] ?? CONTROL
      for (const request of agentFileChangeRequests(absolute(place.workspace, written))) {
        expect(await asker.ask(request(), new AbortController().signal)).toBe('deny')
      }
    },
  )
})
