import type { CaseDefinition } from '../case-runner.ts'
import { manualCases } from './manual-cases.ts'
import { mcpCases } from './mcp-cases.ts'
import { displayCases, permissionCases } from './permission-cases.ts'

/**
 * The approvals scenario, in the order it runs. Display cases come before
 * the permission cases because they need approvals that ask (a room in
 * ask-for-approval); the global-settings check runs last so it compares the
 * settings before and after everything else.
 */
export const APPROVAL_CASES: readonly CaseDefinition[] = [
  ...manualCases,
  ...mcpCases,
  ...displayCases,
  ...permissionCases,
]
