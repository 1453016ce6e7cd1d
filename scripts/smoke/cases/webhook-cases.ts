import { createHmac, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import {
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  webhookResponseSigningText,
} from '../../../src/contracts/approver-webhook.ts'
import type { CaseContext, CaseDefinition } from '../case-context.ts'
import type { SmokeConsentWindow } from '../drivers/smoke-driver.ts'
import { WAIT_TIMEOUT_MS, gui, roomApprovals, waitFor } from '../workbench-ui.ts'
import { closedSoon } from './manual-cases.ts'

const APPROVED = '{"approved": true}'

/** A conforming approver on 127.0.0.1 that approves every request, signed
 *  with `secret()` (known only once the protected window showed it). */
async function approvingServer(secret: () => string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        approvalId: string
        actionDigest: string
        nonce: string
      }
      const timestamp = String(Date.now())
      const text = webhookResponseSigningText({ ...body, timestamp, body: APPROVED })
      const signature = createHmac('sha256', secret()).update(text, 'utf8').digest('hex')
      response.writeHead(200, {
        'content-type': 'application/json',
        [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
        [WEBHOOK_SIGNATURE_HEADER]: `v1=${signature}`,
      })
      response.end(APPROVED)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/decide`, server }
}

async function enabled(consent: SmokeConsentWindow, selector: string) {
  await consent.page.waitForSelector(`${selector}:not([disabled])`, { timeout: WAIT_TIMEOUT_MS })
}

/** Asks main to set or remove the webhook as the workbench would; the call
 *  resolves once every window it opened has closed. */
function requestWebhook(context: CaseContext, roomId: string, url: string | null) {
  return context.driver
    .workbench()
    .then((page) => gui<{ status: string }>(page, 'requestApproverWebhook', roomId, url))
}

/**
 * The approver webhook is configured only in the protected window: it shows
 * the exact URL and what it hands over, then the new secret once; with it, a
 * real approver on loopback allows an action the room would have asked
 * about. The case uses a room of its own, and removes the webhook again
 * through the window, so no other case meets it.
 */
export const webhookCases: CaseDefinition[] = [
  {
    id: 'approver-webhook-window',
    title:
      'Approver webhook: the protected window shows the exact URL and what it hands over, then the secret once; the webhook then decides, and is removed in the window again',
    screenshots: ['protected-approver-webhook.png', 'protected-approver-webhook-secret.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const created = await gui<{ status: number; body: { room: { id: string } } }>(
        page,
        'createRoom',
        {
          kind: 'direct',
          agentId: 'assistant',
          workspace: context.driver.workspace,
          title: 'Webhook room',
        },
      )
      context.check('a room of its own is created', created.status === 201, String(created.status))
      const roomId = created.body.room.id
      let secret = ''
      const approver = await approvingServer(() => secret)
      try {
        const set = requestWebhook(context, roomId, approver.url)
        const review = await context.driver.nextConsentWindow()
        await enabled(review, '#assent-cancel')
        const shown = (await review.page.textContent('body')) ?? ''
        context.check(
          'the window asks whether a webhook may decide, names the exact URL, and says what it hands over and that silence denies',
          shown.includes('Let a webhook decide for you in Webhook room?') &&
            shown.includes(approver.url) &&
            shown.includes('{"approved": true} allows it once') &&
            shown.includes('Whoever controls this address decides for you'),
          shown.slice(0, 400),
        )
        await enabled(review, '#assent-confirm')
        await context.screenshot(
          review.page,
          'protected-approver-webhook.png',
          'The protected window asking to let a loopback webhook decide in a room, with its exact URL and what it hands over',
        )
        await review.page.click('#assent-confirm')
        context.check('the window closes after the decision', await closedSoon(review))

        const secretWindow = await context.driver.nextConsentWindow()
        await enabled(secretWindow, '#assent-cancel')
        secret = ((await secretWindow.page.textContent('#assent-webhook-secret')) ?? '').trim()
        context.check(
          'a second window shows the new secret, with only a Done button',
          /^[A-Za-z0-9_-]{43}$/.test(secret) &&
            !(await secretWindow.page.isVisible('#assent-confirm')),
        )
        await context.screenshot(
          secretWindow.page,
          'protected-approver-webhook-secret.png',
          "The protected window showing the new webhook's secret, once",
        )
        await secretWindow.page.click('#assent-cancel')
        const outcome = await set
        context.check(
          'the workbench hears the change, never the secret',
          outcome.status === 'webhook-changed' && !JSON.stringify(outcome).includes(secret),
          JSON.stringify(outcome).slice(0, 200),
        )

        const target = join(context.driver.workspace, 'webhook-smoke.txt')
        await gui(page, 'sendMessage', roomId, {
          clientRequestId: randomUUID(),
          text: 'write webhook-smoke.txt decided by the webhook',
        })
        const decided = await waitFor(async () => {
          const approvals = await roomApprovals(page, roomId)
          return approvals.find((approval) => approval.status !== 'pending')
        }, 'the webhook to decide').catch(() => undefined)
        context.check(
          'the webhook allowed the write once, audited as decidedBy webhook',
          decided?.status === 'allowed' && decided.decidedBy === 'webhook',
          JSON.stringify(decided),
        )
        await waitFor(async () => (existsSync(target) ? true : undefined), 'the write')

        const removed = requestWebhook(context, roomId, null)
        const removal = await context.driver.nextConsentWindow()
        await enabled(removal, '#assent-confirm')
        const removing = (await removal.page.textContent('body')) ?? ''
        context.check(
          'removing it names the webhook and says the room asks again',
          removing.includes('Stop the approver webhook of Webhook room?') &&
            removing.includes(approver.url),
          removing.slice(0, 300),
        )
        await removal.page.click('#assent-confirm')
        const after = await removed
        context.check(
          'the webhook is removed',
          JSON.stringify(after) === JSON.stringify({ status: 'webhook-changed', webhook: null }),
          JSON.stringify(after),
        )
      } finally {
        approver.server.closeAllConnections()
        approver.server.close()
      }
    },
  },
]
