import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintConsentToken } from '../src/consent/consent-token.ts'
import { RuntimeClient } from '../src/main/core/runtime-client.ts'
import type { RuntimeConnection } from '../src/main/core/runtime-supervisor.ts'
import { startRuntime } from '../src/runtime/runtime-app.ts'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import {
  decide,
  roomGrants,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'
import { fileRollbackAnchor } from './support/test-secrets.ts'

/**
 * An "always allow" for a command is given on an approval that showed the
 * command contained (writable: the workspace; no network; secrets hidden).
 * When the same data folder is later run where no sandbox can start, with
 * the uncontained setting on (whose approvals say "runs with every right
 * of this account"), the grant must not answer: the person allowed a
 * contained command (tool-call-runner.ts, as for a turn with a widened
 * folder), and this one is theirs to allow each time.
 */

const HAS_BWRAP = await bubblewrapRequired()

const ESCAPING = `run sh -c 'echo escaped > ../escape.txt; echo in > inside.txt'`

interface Keys {
  bearerToken: string
  consentKey: Buffer
  integrityKey: Buffer
}

/** A real runtime in this process on `root`'s data folder (kept between
 *  starts), with `sandbox` as its command sandbox when given. */
async function startOn(
  root: string,
  keys: Keys,
  sandbox: CommandSandbox | undefined,
): Promise<RuntimeHarness> {
  const dataDir = join(root, 'data')
  const workspace = join(root, 'workspace')
  const rollbackAnchor = fileRollbackAnchor(dataDir)
  const handle = await startRuntime({
    rollback: {
      stored: (await rollbackAnchor.read()) ?? null,
      anchor: { advance: async (counter) => void (await rollbackAnchor.advance(counter)) },
    },
    bearerToken: keys.bearerToken,
    consentKey: keys.consentKey,
    integrityKey: keys.integrityKey,
    dataDir,
    scopedRoots: [workspace],
    onFatal: (error) => {
      throw error
    },
    ...(sandbox ? { commandSandbox: sandbox } : {}),
  })
  const connection = (): RuntimeConnection => ({
    port: handle.port,
    instanceId: handle.instanceId,
    bearerToken: keys.bearerToken,
    consentKey: keys.consentKey,
  })
  return {
    root,
    dataDir,
    workspace,
    integrityKey: keys.integrityKey,
    rollbackAnchor,
    connection,
    client: new RuntimeClient(connection),
    mintApproval: (
      approvalId: string,
      decision: 'allow-once' | 'allow-always' | 'deny',
      actionDigest: string,
    ) =>
      mintConsentToken({
        key: keys.consentKey,
        now: Date.now(),
        binding: {
          kind: 'approval',
          subject: { approvalId, decision, actionDigest, instanceId: handle.instanceId },
        },
      }),
    close: () => handle.close(),
  } as unknown as RuntimeHarness
}

describe.runIf(HAS_BWRAP)('a command grant given on a contained command', () => {
  let root: string
  let keys: Keys
  let harness: RuntimeHarness | undefined

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'assent-grt3-contain-')))
    await mkdir(join(root, 'data'), { recursive: true })
    await mkdir(join(root, 'workspace'), { recursive: true })
    keys = {
      bearerToken: randomBytes(32).toString('base64url'),
      consentKey: randomBytes(32),
      integrityKey: randomBytes(32),
    }
  })
  afterAll(async () => {
    await harness?.close()
    await rm(root, { recursive: true, force: true })
  })

  it('does not answer once the command would run uncontained', async () => {
    // First start: bubblewrap contains commands. The person allows always.
    harness = await startOn(root, keys, undefined)
    const room = await createRoom(harness)
    const first = await send(harness, room.id, ESCAPING)
    const view = await waitForPendingApproval(harness, room.id, first)
    expect(view.action.containment).toMatchObject({ contained: true, network: false })
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, first)
    // Contained: the write outside the workspace did not happen (control).
    expect(existsSync(join(root, 'escape.txt'))).toBe(false)
    expect(await roomGrants(harness, room.id)).toHaveLength(1)
    await harness.close()
    harness = undefined

    // Second start of the same data folder, where no sandbox can start and
    // the person's uncontained setting is on: a new approval would say
    // "not contained"; the grant was given for a contained command.
    harness = await startOn(
      root,
      keys,
      new CommandSandbox({
        env: process.env,
        assentPrivate: [join(root, 'data')],
        platform: 'linux',
        allowUncontained: true,
        probe: () =>
          Promise.resolve({
            available: false,
            missing: 'bubblewrap cannot create a user namespace here',
            fix: 'allow unprivileged user namespaces',
          }),
      }),
    )
    const second = await send(harness, room.id, ESCAPING)
    const running = harness
    const outcome = await eventually(async () => {
      const [call] = await toolCallsOf(running, room.id, second)
      if (call?.status === 'awaiting-approval') return 'asked the person'
      if (call?.status === 'succeeded' || call?.status === 'failed') return 'ran unasked'
      return undefined
    }, 'the second command to ask or to run')
    const [call] = await toolCallsOf(running, room.id, second)
    // Secure: the person is asked again, shown that it is not contained;
    // nothing was written outside the workspace by a grant.
    expect({ outcome, approvalId: call?.approvalId ?? null }).toMatchObject({
      outcome: 'asked the person',
    })
    expect(existsSync(join(root, 'escape.txt'))).toBe(false)
  })
})
