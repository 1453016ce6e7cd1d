import { mkdirSync } from 'node:fs'
import { PROJECT_ROOT } from '../../src/main/cdp/built-assets.ts'
import { ensureBuilt } from '../build-freshness.ts'
import { ensureAgentsInstalled } from '../agents/install-agents.ts'
import { SMOKE_CASES } from './cases/approval-cases.ts'
import { provideElectronBinary } from './host-choice.ts'
import { namesProject, requestedProjects, runNeedsRealAgents } from './project-request.ts'
import { EVIDENCE_VARIABLE } from './smoke-settings.ts'

/**
 * Playwright Test's global setup for the smoke scenario, once per run before
 * any host starts: makes the evidence folder (checked when the config was
 * loaded, smoke-settings.ts), then builds the app when its build is missing
 * or older than its sources (the hosts load the built pages and preloads),
 * and, when the electron project was asked for by name (or with every
 * project under ASSENT_REQUIRE_ALL=1), fetches the
 * Electron binary if there is none yet (host-choice.ts). When a selected
 * case runs the real agents, it installs the pinned ones if they are not
 * there yet (scripts/agents/install-agents.ts, with npm's progress); if that
 * fails, only those cases are not run (smoke-fixtures.ts).
 */
export default async function globalSetup(): Promise<void> {
  const evidence = process.env[EVIDENCE_VARIABLE]
  if (!evidence) throw new Error(`${EVIDENCE_VARIABLE} is not set (playwright.config.ts sets it)`)
  mkdirSync(evidence, { recursive: true })
  ensureBuilt((line) => console.log(`smoke: ${line}`))
  // Named, or taken with every project by a run that may skip nothing
  // (ASSENT_REQUIRE_ALL=1, project-request.ts): then it is fetched first.
  const requested = requestedProjects(process.argv)
  const electronAskedFor =
    requested.some((name) => namesProject(name, 'electron')) ||
    (requested.length === 0 && process.env.ASSENT_REQUIRE_ALL === '1')
  provideElectronBinary(electronAskedFor, PROJECT_ROOT, process.env)
  if (runNeedsRealAgents(process.argv, SMOKE_CASES)) {
    const failure = await ensureAgentsInstalled()
    if (failure) {
      console.log(`smoke: could not install the real agents; their cases will not run: ${failure}`)
    }
  }
}
