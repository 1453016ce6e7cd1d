import { join } from 'node:path'
import { defineConfig } from '@playwright/test'
import { PROJECT_ROOT } from './src/main/cdp/built-assets.ts'
import { chromiumArgs, findChromium } from './src/main/cdp/chromium.ts'
import { SMOKE_CASE_TIMEOUT_MS } from './scripts/test-timing.ts'
import {
  HTML_REPORT_FOLDER,
  TEST_RESULTS_FOLDER,
  evidenceFolderOf,
} from './scripts/smoke/smoke-settings.ts'
import type { SmokeHost } from './scripts/smoke/verify-evidence.ts'

/**
 * The approvals smoke scenario (scripts/smoke/approvals.spec.ts), one
 * project per host. `npx playwright test` or `npm run smoke` runs the cdp
 * project, and the electron one where an Electron binary exists (it skips
 * with its reason otherwise). Browsers are Debian's Chromium, never a
 * downloaded one.
 *
 * Everything a run leaves goes into the evidence folder, outside the
 * checkout: ASSENT_APPROVAL_EVIDENCE, or a fresh folder under the temp
 * folder when none is named; checked here, before Playwright writes into it
 * (smoke-settings.ts).
 */
const evidence = evidenceFolderOf(process.env, PROJECT_ROOT)

export default defineConfig<{ hostKind: SmokeHost }>({
  testDir: './scripts/smoke',
  testMatch: '*.spec.ts',
  globalSetup: './scripts/smoke/smoke-global-setup.ts',
  // One host at a time: each starts a browser (or Electron) and a runtime,
  // and the cases of one host share its session in order.
  workers: 1,
  fullyParallel: false,
  // A case that needs a retry is a bug to fix, not to hide.
  retries: 0,
  forbidOnly: true,
  timeout: SMOKE_CASE_TIMEOUT_MS,
  outputDir: join(evidence, TEST_RESULTS_FOLDER),
  reporter: [
    ['list'],
    ['html', { outputFolder: join(evidence, HTML_REPORT_FOLDER), open: 'never' }],
    ['./scripts/smoke/smoke-reporter.ts'],
  ],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: findChromium(), args: chromiumArgs() },
  },
  projects: [
    { name: 'cdp', use: { hostKind: 'cdp' } },
    { name: 'electron', use: { hostKind: 'electron' } },
  ],
})
