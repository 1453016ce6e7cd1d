import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { TEST_TIMEOUT_MS } from './scripts/test-timing.ts'

/**
 * The unit tests Stryker runs against each mutant of the security core
 * (`mutate` in stryker.config.json): only the colocated tests of those
 * files. None spawns a process, opens a browser or needs the built pages, so
 * there is no global build step here. Property tests draw from one fixed seed
 * (tests/support/fixed-property-seed.ts), so a verdict never rests on luck.
 */
export const MUTATION_TEST_FILES = [
  'src/runtime/external-agents/codex-app-server-messages.test.ts',
  'src/runtime/external-agents/codex-app-server-messages.schemas.test.ts',
  'src/runtime/external-agents/acp-messages.test.ts',
  'src/runtime/external-agents/acp-messages.schemas.test.ts',
  'src/runtime/external-agents/acp-tool-call-files.test.ts',
  'src/runtime/external-agents/acp-tool-call-reading.test.ts',
  'src/runtime/server/routes/approval-routes.test.ts',
  'src/runtime/server/routes/room-routes.test.ts',
  'src/preload-protected/trusted-click.test.ts',
  'src/main/core/decision-timing.test.ts',
  'src/main/core/sender-validator.test.ts',
  'src/main/core/renderer-allowlist.test.ts',
  'src/runtime/tools/command-environment.test.ts',
  'src/runtime/policy/read-reach.test.ts',
  'src/runtime/tools/file-target.test.ts',
  'src/runtime/tools/anchored-directory.test.ts',
  'src/runtime/tools/safe-file-ops.last-instant.test.ts',
  'src/runtime/tools/safe-file-ops.test.ts',
  'src/runtime/tools/file-change-preview.test.ts',
  'src/runtime/policy/approval-policy.test.ts',
  'src/runtime/policy/docs-policy-table.test.ts',
  'src/runtime/policy/path-containment.test.ts',
  'src/runtime/policy/path-containment.fs-errors.test.ts',
  'src/runtime/policy/sandbox.test.ts',
  'src/runtime/policy/sandbox-pinned-workspace.test.ts',
  'src/runtime/policy/sandbox-extra-roots.test.ts',
  'src/runtime/gate/approval-gate.test.ts',
  'src/runtime/gate/approval-gate-anchor.test.ts',
  'src/runtime/gate/approval-gate-records.test.ts',
  'src/runtime/gate/approval-gate-shown-action.test.ts',
  'src/runtime/domain/rollback-check.test.ts',
  'src/main/core/rollback-anchor-keeper.test.ts',
  'src/runtime/rollback/ipc-rollback-anchor.test.ts',
  'src/runtime/rollback/rollback-guard.test.ts',
  'src/runtime/rollback/rollback-guard-running.test.ts',
  'src/runtime/rollback/rollback-guard-history.test.ts',
  'src/consent/consent-token.test.ts',
  'src/consent/consent-subject.test.ts',
  'src/consent/consent-token-verifier.test.ts',
  'src/consent/consent-token-grammar.test.ts',
  'src/consent/expiry-queue.test.ts',
  'src/runtime/server/consent-headers.test.ts',
  'src/runtime/server/consent-headers-tap.test.ts',
  'src/main/core/consent-controller.test.ts',
  'src/main/core/consent-controller.approval.test.ts',
  'src/main/core/consent-controller.prompts.test.ts',
  'src/main/core/consent-controller.timing.test.ts',
  'src/consent/nonce-ledger.test.ts',
  'src/consent/consent-nonces.test.ts',
  'src/consent/hmac-sha256.test.ts',
  'src/consent/consent-token-ledger.test.ts',
]

/**
 * Runs the files in the order listed. A mutant in module-level code (a
 * table, a preset) runs every file until the first failure; the consent
 * nonces' and ledger's files hold the slow tests (65 536 forgeries, the
 * 65 536-nonce default capacity), so they go last and such a mutant is
 * usually caught before they start.
 */
class ListedOrderSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = MUTATION_TEST_FILES.findIndex((file) => spec.moduleId.endsWith(file))
      return index === -1 ? MUTATION_TEST_FILES.length : index
    }
    return [...files].sort((a, b) => rank(a) - rank(b))
  }
}

export default defineConfig({
  test: {
    include: MUTATION_TEST_FILES,
    environment: 'node',
    setupFiles: ['tests/support/fixed-property-seed.ts'],
    testTimeout: TEST_TIMEOUT_MS,
    sequence: { sequencer: ListedOrderSequencer },
  },
})
