import { ACTION_DIGEST_HEADER, CONSENT_HEADER } from '../../../contracts/http-headers.ts'
import { ApprovalDecisionRequestSchema, type ApprovalRecord } from '../../../contracts/approval.ts'
import { actionDigest, canonicalAction } from '../../domain/approval.ts'
import type { ConsentTokenVerifier } from '../../../consent/consent-token.ts'
import { ActionDigestSchema } from '../../../contracts/consent.ts'
import type { ApprovalGate } from '../../gate/approval-gate.ts'
import type { ApprovalStore } from '../../ports/approval-store.ts'
import { exactHeaderValue } from '../consent-headers.ts'
import { Refusal } from '../../domain/refusal.ts'
import { readJsonBody, sendJson } from '../http-kit.ts'
import { routeParam, type Route } from '../router.ts'

export interface ApprovalRouteDeps {
  approvals: Pick<ApprovalStore, 'get'>
  gate: ApprovalGate
  verifier: ConsentTokenVerifier
  instanceId: string
  /** Why an allow-always on this approval cannot be honoured (no grant can
   *  be scoped to it), or null when it can. */
  alwaysAllowBlocker: (approval: ApprovalRecord) => string | null
  /** The same for `allow-always-server`: why every tool of the MCP server
   *  cannot be allowed, or null when it can. */
  serverAlwaysAllowBlocker: (approval: ApprovalRecord) => string | null
}

const consentRequired = () => new Refusal('consent_required', 'protected approval consent required')

export function approvalRoutes(deps: ApprovalRouteDeps): Route[] {
  return [
    {
      // Main's route: the canonical action the protected window shows.
      method: 'GET',
      pattern: '/v1/approvals/:approvalId',
      handle: async ({ res, params }) => {
        const approval = deps.approvals.get(routeParam(params, 'approvalId'))
        if (!approval) throw new Refusal('unknown_approval', 'unknown approval')
        const action = canonicalAction(approval)
        sendJson(res, 200, {
          approval,
          action,
          actionDigest: actionDigest(action),
          alwaysAllowAvailable: deps.alwaysAllowBlocker(approval) === null,
          serverAlwaysAllowAvailable: deps.serverAlwaysAllowBlocker(approval) === null,
        })
      },
    },
    {
      method: 'POST',
      pattern: '/v1/approvals/:approvalId',
      handle: async ({ req, res, params }) => {
        const approvalId = routeParam(params, 'approvalId')
        const body = await readJsonBody(req, ApprovalDecisionRequestSchema)
        // Both headers exactly as sent, or the same 403. The digest must be in
        // its grammar before the token is tried: the verifier spends a genuine
        // token presented with a subject it cannot sign, so a malformed digest
        // would burn the person's consent. (A token out of grammar spends
        // nothing: the verifier refuses it before its ledger.)
        const token = exactHeaderValue(req, CONSENT_HEADER)
        const digest = ActionDigestSchema.safeParse(exactHeaderValue(req, ACTION_DIGEST_HEADER))
        if (!digest.success) throw consentRequired()
        // The token is verified before the approval is looked up, against the
        // subject rebuilt from this request, and every failure is the same
        // 403: a caller without consent learns nothing about the approval.
        const verified = deps.verifier.verify(token, {
          kind: 'approval',
          subject: {
            approvalId,
            decision: body.decision,
            actionDigest: digest.data,
            instanceId: deps.instanceId,
          },
        })
        if (!verified) throw consentRequired()
        // The gate refuses the decision unless the approval still shows
        // exactly the action the token named (the same 403), and refuses an
        // "always" it cannot honour rather than downgrading it to allow-once:
        // the person chose "always", and acting on less than that without
        // saying so would mislead them.
        const outcome = await deps.gate.decide({
          approvalId,
          decision: body.decision,
          decidedBy: 'user',
          shownActionDigest: digest.data,
          unavailable: (approval) =>
            body.decision === 'allow-always'
              ? deps.alwaysAllowBlocker(approval)
              : body.decision === 'allow-always-server'
                ? deps.serverAlwaysAllowBlocker(approval)
                : null,
        })
        if (!outcome.ok) throw new Refusal(outcome.code, outcome.error)
        sendJson(res, 200, { approval: outcome.approval })
      },
    },
  ]
}
