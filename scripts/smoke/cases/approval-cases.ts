import type { CaseDefinition } from '../case-context.ts'
import { cardCases } from './card-cases.ts'
import { agentCases } from './agent-cases.ts'
import { gatewayCases } from './gateway-cases.ts'
import { claudeCases } from './claude-cases.ts'
import { forgedCases } from './forged-cases.ts'
import { manualCases } from './manual-cases.ts'
import { mcpCases } from './mcp-cases.ts'
import { webhookCases } from './webhook-cases.ts'
import { displayCases } from './display-cases.ts'
import { fileCases } from './file-cases.ts'
import { protectedCases } from './protected-cases.ts'
import { closingCases, permissionCases } from './permission-cases.ts'
import { permissionRequestCases } from './permission-request-cases.ts'
import { questionCases } from './question-cases.ts'

/**
 * The approvals scenario, in the order it runs: the one list of cases. The
 * Playwright suite (approvals.spec.ts) makes a test of each, and
 * `smoke:verify` requires each to have run and passed with the screenshots
 * it declares, so adding a case to a group below is all it takes. Display,
 * file, protected-window and card cases come before the permission cases because
 * they need approvals that ask (a room in ask-for-approval); questions and forms come after the expiry case, whose
 * restart leaves no approval open (a message would reject it); the
 * global-settings check runs last so it compares the
 * settings before and after everything else. The external-agent cases
 * open rooms of their own and go back to the scenario's room when done.
 */
export const SMOKE_CASES: readonly CaseDefinition[] = [
  ...manualCases,
  ...forgedCases,
  ...mcpCases,
  ...permissionRequestCases,
  ...webhookCases,
  ...agentCases,
  ...gatewayCases,
  ...claudeCases,
  ...displayCases,
  ...fileCases,
  ...protectedCases,
  ...cardCases,
  ...permissionCases,
  ...questionCases,
  ...closingCases,
]
