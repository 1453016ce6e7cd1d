import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
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
import { personOnlyPathsIn } from '../src/runtime/policy/read-only-walk.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import {
  agentCommandRequests,
  agentFileChangeRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
  fileChangeLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { realGit } from './support/real-git.ts'

/**
 * git runs the program a setting of the repository's config names, from
 * its top, beyond the settings every rule already knew: the command that
 * lists an alternate's refs (`core.alternateRefsCommand`, at each fetch in
 * a repository cloned `--shared` or `--reference`), the browser `git help
 * --web` starts, `git instaweb`'s browser and web server, and a hook a
 * config names (`hook.<name>.command`). A script of the workspace named
 * there is git's as a hook is: one table of them, walked through every
 * door that may answer a change to one without the person (a grant on
 * Assent's write tool or on an MCP server's, the reviewer and the webhook
 * that allow everything for an external agent's file change and command,
 * Codex's and an ACP agent's)
 * and Assent's command sandbox, which keeps each read-only, with a control
 * script no setting names, answered at every door.
 */

const PROGRAMS: ReadonlyArray<readonly [string, string]> = [
  ['core.alternateRefsCommand', 'tools/alt.sh'],
  ['help.browser', 'tools/browse.sh'],
  ['instaweb.browser', 'tools/instaweb-browser.sh'],
  ['instaweb.httpd', 'tools/httpd.sh --port 1234'],
  ['hook.lint.command', 'tools/lint-hook.sh'],
]
const SCRIPTS = PROGRAMS.map(([, value]) => value.split(' ')[0] ?? '')
const CONTROL = 'tools/other.sh'

const MAC = new IntegrityMac(Buffer.alloc(32, 29))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

/** A workspace cloned `--shared` from `up` (so it has an alternate), whose
 *  config names each of `PROGRAMS`, each script there. */
function layRepository(root: string, workspace: string): void {
  const up = join(root, 'up')
  realGit(root, root, 'init', '-q', up)
  realGit(root, up, 'commit', '-q', '--allow-empty', '-m', 'a')
  realGit(root, root, 'clone', '-q', '--shared', up, workspace)
  mkdirSync(join(workspace, 'tools'), { recursive: true })
  for (const script of [...SCRIPTS, CONTROL]) {
    writeFileSync(join(workspace, script), '#!/bin/sh\necho ran > "$(dirname "$0")/../ran.txt"\n')
    chmodSync(join(workspace, script), 0o755)
  }
  for (const [setting, value] of PROGRAMS) realGit(root, workspace, 'config', setting, value)
  realGit(root, up, 'commit', '-q', '--allow-empty', '-m', 'b')
}

describe('the rule every door applies', () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const touches = (script: string): ActionTouch[] => {
    const workspace = place.workspace
    return [
      { toolName: 'write_file', arguments: { path: script, content: 'x' }, workspace },
      mcpTouch(
        { serverId: 'files', toolName: 'write_file', arguments: { path: script, content: 'x' } },
        workspace,
      ),
      mcpTouch(
        { serverId: 'shell', toolName: 'run', arguments: { command: `cp x ${script}` } },
        workspace,
      ),
    ]
  }

  beforeAll(() => {
    place = askerWorldInTempWorkspace('assent-config-programs-rule-', MAC, AGENT)
    layRepository(place.root, place.workspace)
  })
  afterAll(() => place.dispose())

  it.each(SCRIPTS)('no grant answers a change to %s', (script) => {
    for (const touch of touches(script)) {
      expect(personOnlyReason(touch), touch.toolName).toMatchObject({ class: 'git' })
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBeUndefined()
    }
  })

  it("Assent's command sandbox keeps each read-only, and not the control", () => {
    const walked = personOnlyPathsIn(place.workspace)
    const kept = [...walked.paths, ...walked.elsewhere]
    for (const script of SCRIPTS) expect(kept).toContain(join(place.workspace, script))
    expect(kept).not.toContain(join(place.workspace, CONTROL))
  })

  it('control: a grant answers a change to a script no setting names', () => {
    for (const touch of touches(CONTROL)) {
      expect(grantThatMayAnswer(touch, 'on-request', () => 'grant')).toBe('grant')
    }
  })
})

describe("an external agent's change, on a repository cloned --shared", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-config-programs-', MAC, AGENT)
    layRepository(place.root, place.workspace)
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a change to a script no setting names, and git fetch runs the first',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      await answersEach(asker, agentFileChangeRequests(join(place.workspace, CONTROL)))
      await answersEach(asker, agentCommandRequests(`cp x ${CONTROL}`, place.workspace))
      execFileSync('git', ['fetch', '-q', 'origin'], {
        cwd: place.workspace,
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      })
      expect(existsSync(join(place.workspace, 'ran.txt'))).toBe(true)
    },
  )

  it.each(SCRIPTS)(
    'is left to the person by the reviewer and the webhook: a change to %s',
    async (script) => {
      await fileChangeLeftToThePersonByEach(place.world, join(place.workspace, script))
      await commandLeftToThePersonByEach(place.world, `cp x ${script}`, place.workspace)
    },
  )
})
