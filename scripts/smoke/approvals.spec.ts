/**
 * The approvals smoke scenario as a Playwright Test suite: one test per case
 * of scripts/smoke/cases/approval-cases.ts, run in order on one session of
 * the app per host project (playwright.config.ts). Each case proves a
 * security claim of the consent flow end to end and leaves assertions a
 * reviewer can read and screenshots in the evidence folder.
 */
import { ELECTRON_MISSING } from './host-choice.ts'
import { SMOKE_CASES } from './cases/approval-cases.ts'
import { electronUnavailable, test } from './smoke-fixtures.ts'

// One app session, its state carried from case to case (the room, the
// approvals it has seen): after a failure the cases that follow would run
// on a session in an unknown state, so they are skipped, not run.
test.describe.configure({ mode: 'serial' })

test.skip(({ hostKind }) => electronUnavailable(hostKind), ELECTRON_MISSING)

for (const definition of SMOKE_CASES) {
  test(`${definition.id}: ${definition.title}`, async ({ smokeCase }) => {
    await smokeCase.run(definition)
  })
}
