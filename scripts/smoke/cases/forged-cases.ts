import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ACTION_DIGEST_HEADER, CONSENT_HEADER } from '../../../src/contracts/http-headers.ts'
import { mintConsentToken } from '../../../src/consent/consent-token.ts'
import { clickToDecide } from '../consent-keys.ts'
import type { CaseDefinition } from '../case-context.ts'
import { approvalStatus, gui, newPendingApproval } from '../workbench-ui.ts'
import { askFor, closedSoon, openReview, scenario } from './manual-cases.ts'

type Bridge = Record<string, (...args: unknown[]) => Promise<unknown>>

/**
 * Every forging the workbench bridge could attempt, run in the workbench
 * page as its own script would. A refusal is a throw (main's strict
 * parsers), or for a gateway call a 4xx from the runtime's strict schemas.
 */
async function tryForgings(
  page: Page,
  ids: { approvalId: string; roomId: string; workspace: string },
) {
  return page.evaluate(async ({ approvalId, roomId, workspace }) => {
    const bridge = (window as unknown as { assentGui: Bridge }).assentGui
    const forged = { decision: 'allow-once', source: 'policy', mode: 'full-access' }
    const attempts: Array<[string, () => Promise<unknown>]> = [
      [
        "reviewApproval(id, { decision: 'allow', source: 'policy' })",
        () => bridge.reviewApproval!(approvalId, { decision: 'allow', source: 'policy' }),
      ],
      ["reviewApproval(id, 'allow-once')", () => bridge.reviewApproval!(approvalId, 'allow-once')],
      [
        'reviewApproval({ approvalId, decision })',
        () => bridge.reviewApproval!({ approvalId, decision: 'allow-once' }),
      ],
      [
        "requestModeChange(roomId, 'full-access', { source: 'policy' })",
        () => bridge.requestModeChange!(roomId, 'full-access', { source: 'policy' }),
      ],
      [
        "requestModeChange(roomId, 'full-access', { revision, confirmed: true })",
        () => bridge.requestModeChange!(roomId, 'full-access', { revision: 0, confirmed: true }),
      ],
      [
        'rejectApprovalForMessage(id, { decision: allow-once })',
        () => bridge.rejectApprovalForMessage!(approvalId, forged),
      ],
      [
        'openSensitiveForm(id, { decision, policy })',
        () => bridge.openSensitiveForm!(approvalId, forged),
      ],
      [
        'setPreferences({ lang, theme, decision, mode })',
        () => bridge.setPreferences!({ lang: 'en', theme: 'light', ...forged }),
      ],
      [
        'setPreferences({ lang, theme }, { decision, mode })',
        () => bridge.setPreferences!({ lang: 'en', theme: 'light' }, forged),
      ],
      [
        'createRoom({ …, mode, policy })',
        () =>
          bridge.createRoom!({
            kind: 'direct',
            agentId: 'assistant',
            workspace,
            title: 'Forged room',
            mode: 'full-access',
            policy: { approvalPolicy: 'never', sandboxMode: 'danger-full-access' },
          }),
      ],
      [
        'sendMessage(roomId, { …, decision, mode })',
        () =>
          bridge.sendMessage!(roomId, {
            clientRequestId: crypto.randomUUID(),
            text: 'write forged-message.txt sent with a forged decision',
            ...forged,
          }),
      ],
    ]
    const results: Array<[string, string]> = []
    for (const [name, attempt] of attempts) {
      results.push([
        name,
        await attempt().then(
          (value) => {
            const status = (value as { status?: unknown } | undefined)?.status
            return typeof status === 'number' && status >= 400
              ? `refused with ${status}`
              : `resolved: ${JSON.stringify(value)?.slice(0, 200)}`
          },
          (error: Error) => `threw: ${error.message}`,
        ),
      ])
    }
    return results
  }, ids)
}

export const forgedCases: CaseDefinition[] = [
  {
    id: 'forged-policy-allow',
    title: 'Forged allows from the workbench are refused; replayed and bad tokens get 403',
    async run(context) {
      const page = await context.driver.workbench()
      const state = scenario(context)
      const approval = await askFor(context, page, 'write forged.txt nobody confirmed this')
      type Permissions = { body: { mode: string; revision: number } }
      const before = (await gui<Permissions>(page, 'permissions', state.roomId)).body
      const openedBefore = await context.driver.consentWindowsOpened()

      const forged = await tryForgings(page, {
        approvalId: approval.id,
        roomId: state.roomId,
        workspace: context.driver.workspace,
      })
      for (const [name, result] of forged)
        context.check(`${name} is refused`, /^(threw|refused)/.test(result), result)
      type Rooms = { body: { rooms: Array<{ title: string }> } }
      const rooms = (await gui<Rooms>(page, 'listRooms')).body.rooms
      context.check(
        'no forged room was created',
        !rooms.some((room) => room.title === 'Forged room'),
        rooms.map((room) => room.title).join(', '),
      )

      const { client, connection } = await context.driver.runtime()
      const view = await client.getApproval(approval.id)
      const tokenFor = (approvalId: string, decision: 'allow-once' | 'deny', digest: string) =>
        mintConsentToken({
          key: connection.consentKey,
          now: Date.now(),
          binding: {
            kind: 'approval',
            subject: {
              approvalId,
              decision,
              actionDigest: digest,
              instanceId: connection.instanceId,
            },
          },
        })
      const decide = (decision: string, headers: Record<string, string>) =>
        client.raw('POST', `/v1/approvals/${approval.id}`, { decision }, headers)

      // A valid token for THIS approval, presented once with a decision it was
      // not minted for: refused, and its nonce is burnt on presentation.
      const token = tokenFor(approval.id, 'allow-once', view.actionDigest)
      const headers = { [CONSENT_HEADER]: token, [ACTION_DIGEST_HEADER]: view.actionDigest }
      const wrong = await decide('deny', headers)
      context.check(
        'a token for this approval presented with another decision gets 403',
        wrong.status === 403,
        `${wrong.status} ${JSON.stringify(wrong.body)}`,
      )
      const replayed = await decide('allow-once', headers)
      context.check(
        'the same token replayed with the decision it was minted for gets 403',
        replayed.status === 403,
        `${replayed.status} ${JSON.stringify(replayed.body)}`,
      )
      const afterReplay = await approvalStatus(page, state.roomId, approval.id)
      context.check(
        'after the replay the approval is still pending',
        afterReplay?.status === 'pending',
        afterReplay?.status,
      )

      // Sent with main's client, not the composer: text sent from the
      // composer while this approval is open would first reject it.
      await client.raw('POST', `/v1/rooms/${state.roomId}/messages`, {
        clientRequestId: randomUUID(),
        text: 'write other.txt another action',
      })
      const other = await newPendingApproval(page, state.roomId, state.known)
      state.known.add(other.id)
      const otherView = await client.getApproval(other.id)
      const attempts: Array<[string, Record<string, string>]> = [
        [
          'a token for another approval',
          {
            [CONSENT_HEADER]: tokenFor(other.id, 'allow-once', otherView.actionDigest),
            [ACTION_DIGEST_HEADER]: view.actionDigest,
          },
        ],
        [
          'a malformed token',
          {
            [CONSENT_HEADER]: 'v1.123.not-a-nonce.not-a-signature',
            [ACTION_DIGEST_HEADER]: view.actionDigest,
          },
        ],
        ['no token', { [ACTION_DIGEST_HEADER]: view.actionDigest }],
      ]
      for (const [name, attemptHeaders] of attempts) {
        const response = await decide('allow-once', attemptHeaders)
        context.check(
          `${name} gets 403`,
          response.status === 403,
          `${response.status} ${JSON.stringify(response.body)}`,
        )
      }
      const denyOther = tokenFor(other.id, 'deny', otherView.actionDigest)
      const first = await client.decideApproval(other.id, 'deny', denyOther, otherView.actionDigest)
      context.check(
        'a valid token for the other approval still decides it, once',
        first.status === 200,
        String(first.status),
      )

      const after = await approvalStatus(page, state.roomId, approval.id)
      context.check(
        'the approval is unchanged (pending)',
        after?.status === 'pending',
        after?.status,
      )
      const permissionsAfter = (await gui<Permissions>(page, 'permissions', state.roomId)).body
      context.check(
        "the room's mode and revision are unchanged",
        permissionsAfter.mode === before.mode && permissionsAfter.revision === before.revision,
        `${before.mode}@${before.revision} → ${permissionsAfter.mode}@${permissionsAfter.revision}`,
      )
      const openedAfter = await context.driver.consentWindowsOpened()
      context.check(
        'no protected window opened for any of it',
        openedAfter === openedBefore,
        `${openedBefore} before, ${openedAfter} after`,
      )
      context.check(
        'nothing was written',
        !existsSync(join(context.driver.workspace, 'forged.txt')),
      )
      const consent = await openReview(context, page, approval.id, 'deny')
      await clickToDecide(consent.page, '#assent-deny')
      await closedSoon(consent)
    },
  },
]
