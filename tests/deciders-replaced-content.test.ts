import { linkSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import type {
  ExternalActionRequest,
  ExternalFileChange,
} from '../src/runtime/external-agents/external-agent-port.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import type { DelegatedApprover } from '../src/runtime/ports/delegated-approver.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  askerWorldInTempWorkspace,
  codexRequest,
} from '../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../src/runtime/test-support/sqlite-stores.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { putApproverWebhook } from './support/person-only-table.ts'
import { decide, outsideDir, roomApprovals } from './support/policy-helpers.ts'
import { RecordingModel } from './support/recording-model.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A change to a file that is there shows the person the file's current
 * lines, and they are in the action every decider is sent (a write's
 * preview, an external agent's `oldText`, which Assent read itself). Where
 * a read of that file would be private (a secret's name, another name of a
 * file outside the workspace, a file in a folder outside it), neither the
 * automatic reviewer nor the approver webhook is asked: what the agent
 * never read must not reach them through a change it asks for. A change to
 * an ordinary file of the workspace is still theirs to decide (the
 * controls).
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 3))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }
const SECRET = 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY'
const KEPT = /is asked about what it replaces/

type Place = ReturnType<typeof askerWorldInTempWorkspace>

/** Each row: what is laid out, and the change the agent asks for. */
const ROWS: Array<{ name: string; lay: (place: Place) => ExternalFileChange[] }> = [
  {
    name: 'an added file over .env',
    lay: ({ workspace }) => {
      writeFileSync(join(workspace, '.env'), `${SECRET}\n`)
      return [added(join(workspace, '.env'))]
    },
  },
  {
    name: 'a move onto .env',
    lay: ({ workspace }) => {
      writeFileSync(join(workspace, '.env'), `${SECRET}\n`)
      writeFileSync(join(workspace, 'draft.txt'), 'draft\n')
      return [
        {
          ...added(join(workspace, 'draft.txt')),
          change: 'update',
          movePath: join(workspace, '.env'),
          diff: '@@ -1 +1 @@\n-draft\n+X=1\n',
        },
      ]
    },
  },
  {
    name: 'an added file over another name of a file outside the workspace',
    lay: ({ root, workspace }) => {
      mkdirSync(join(root, 'private'))
      writeFileSync(join(root, 'private', 'diary.txt'), `${SECRET}\n`)
      linkSync(join(root, 'private', 'diary.txt'), join(workspace, 'notes.txt'))
      return [added(join(workspace, 'notes.txt'))]
    },
  },
]

function added(path: string): ExternalFileChange {
  return {
    path,
    change: 'add',
    movePath: null,
    diff: 'X=1\n',
    oldText: null,
    newText: null,
  }
}

/** Deciders that record what they are sent and leave it to the person. */
function recording(sent: string[]): { reviewer: ActionReviewer; delegate: DelegatedApprover } {
  return {
    reviewer: {
      review: (input) => {
        sent.push(JSON.stringify(input))
        return Promise.resolve({ verdict: 'escalate', reason: 'left to the person' })
      },
    },
    delegate: {
      id: 'recording-webhook',
      decide: (request) => {
        sent.push(JSON.stringify(request))
        return Promise.resolve({ decision: 'deny', reason: 'webhook says no' })
      },
    },
  }
}

const DECIDERS = [
  { by: 'the automatic reviewer', mode: 'approve-for-me', part: 'reviewer' },
  { by: 'the approver webhook', mode: 'ask-for-approval', part: 'delegate' },
] as const

let place: Place | undefined
afterEach(() => {
  place?.dispose()
  place = undefined
})

async function asked(request: ExternalActionRequest, decider: (typeof DECIDERS)[number]) {
  const sent: string[] = []
  const deciders = recording(sent)
  const { asker } = place!.world.askerUnder(policyForMode(decider.mode), {
    [decider.part]: deciders[decider.part],
  })
  const answer = asker.ask(request, new AbortController().signal)
  const approval = await eventually(() => {
    const found = place!.world.stores.approvals.listByRoom(ROOM_ID).at(-1)
    return Promise.resolve(
      found?.escalationReason !== undefined || found?.status === 'denied' ? found : undefined,
    )
  }, 'a decider to have been asked or passed over')
  return { sent, approval, answer }
}

describe("an external agent's change to a file that is there", () => {
  it.each(ROWS)('is kept from the reviewer and the webhook: $name', async (row) => {
    for (const decider of DECIDERS) {
      place?.dispose()
      place = askerWorldInTempWorkspace('assent-replaced-content-', MAC, AGENT)
      const changes = row.lay(place)
      const { sent, approval, answer } = await asked(
        codexRequest({ kind: 'file-changes', changes }),
        decider,
      )
      expect(sent, decider.by).toEqual([])
      expect(approval, decider.by).toMatchObject({
        status: 'pending',
        escalationReason: expect.stringMatching(KEPT),
      })
      await place.world.gate.decide({
        approvalId: approval!.id,
        decision: 'deny',
        decidedBy: 'user',
      })
      expect(await answer).toBe('deny')
    }
  })

  it('control: a change to an ordinary file of the workspace is theirs to decide', async () => {
    for (const decider of DECIDERS) {
      place?.dispose()
      place = askerWorldInTempWorkspace('assent-replaced-content-', MAC, AGENT)
      writeFileSync(join(place.workspace, 'notes.txt'), 'old notes\n')
      const request = codexRequest({
        kind: 'file-changes',
        changes: [added(join(place.workspace, 'notes.txt'))],
      })
      const { sent, answer } = await asked(request, decider)
      expect(sent.join('\n'), decider.by).toContain('old notes')
      const [approval] = place.world.stores.approvals.listByRoom(ROOM_ID)
      if (approval?.status === 'pending') {
        await place.world.gate.decide({
          approvalId: approval.id,
          decision: 'deny',
          decidedBy: 'user',
        })
      }
      expect(await answer).toBe('deny')
    }
  })
})

describe('a built-in write to a file in a folder the person let the turn write', () => {
  let harness: RuntimeHarness
  let approver: ApproverServer
  let secret = ''

  beforeAll(async () => {
    harness = await startInProcessRuntime({ model: new RecordingModel() })
    approver = await ApproverServer.start()
    approver.behaviour = (request) => signedReply(secret, request, '{"approved": false}')
  })
  afterAll(async () => {
    await approver?.close()
    await harness?.close()
  })

  it('is kept from the webhook, as a read of it is', async () => {
    const room = await createRoom(harness)
    const set = await putApproverWebhook(harness, room.id, approver.url)
    expect(set.status).toBe(200)
    secret = (set.body as { secret?: string }).secret ?? ''
    const outside = await outsideDir(harness)
    const diary = join(outside, 'diary.txt')
    await writeFile(diary, `${SECRET}\n`)
    const turnId = await send(
      harness,
      room.id,
      [`permit write ${outside}`, `write ${diary} overwritten`].join('\n'),
    )
    const permission = await eventually(async () => {
      const found = (await roomApprovals(harness, room.id)).find((a) => a.status === 'pending')
      return found ? harness.client.getApproval(found.id) : undefined
    }, 'the permission request')
    expect((await decide(harness, permission, 'allow-once')).status).toBe(200)
    const write = await eventually(async () => {
      const found = (await roomApprovals(harness, room.id)).find(
        (a) => a.toolName === 'write_file' && a.escalationReason !== undefined,
      )
      return found ? harness.client.getApproval(found.id) : undefined
    }, 'the write left to the person')
    expect(write.approval).toMatchObject({
      status: 'pending',
      escalationReason: expect.stringMatching(KEPT),
    })
    expect(write.action.arguments).toMatchObject({ path: realpathSync(diary) })
    expect(approver.requests).toEqual([])
    expect((await decide(harness, write, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
  })
})
