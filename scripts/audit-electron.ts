/**
 * `npm run audit:electron`: runs Doyensec's electronegativity over src/ and
 * fails on any finding of MEDIUM or above that electronegativity-baseline.json
 * does not explain, on any stale baseline entry, and on any file the tool
 * could not parse. Electronegativity exits 0 on all of those by itself.
 *
 * The scan is offline. The tool's only network uses are a translation
 * download at start and the Electron release list for
 * AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK (is a newer Electron out?). Neither
 * looks at our code: the check is excluded (Electron updates are a dependency
 * review matter), and its HTTP client is replaced by one that refuses, so the
 * result never depends on the network and no request leaves the machine.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  evaluateAudit,
  formatVerdict,
  parseBaseline,
  readElectronegativityResult,
} from './audit-electron-findings.ts'

const repoRoot = resolve(import.meta.dirname, '..')
/** src/ by default; another folder may be named to try the gate on it. */
const scannedDir = resolve(process.argv[2] ?? join(repoRoot, 'src'))
const baselinePath = join(repoRoot, 'electronegativity-baseline.json')
const require = createRequire(import.meta.url)

const EXCLUDED_CHECKS = ['availablesecurityfixesglobalcheck']

type RunElectronegativity = (options: Record<string, unknown>) => Promise<unknown>

/** Loads electronegativity with its HTTP client (`got`) replaced by one that
 *  refuses every request at once. */
function loadOfflineElectronegativity(): RunElectronegativity {
  const toolEntry = require.resolve('@doyensec/electronegativity')
  const gotPath = createRequire(toolEntry).resolve('got')
  const refuse = () => Promise.reject(new Error('audit:electron runs offline'))
  const offlineGot = Object.assign(refuse, { head: refuse, get: refuse })
  require.cache[gotPath] = {
    id: gotPath,
    filename: gotPath,
    loaded: true,
    exports: offlineGot,
  } as unknown as NodeJS.Module
  const loaded = require(toolEntry) as RunElectronegativity | { default: RunElectronegativity }
  return typeof loaded === 'function' ? loaded : loaded.default
}

async function main(): Promise<void> {
  const baseline = parseBaseline(await readFile(baselinePath, 'utf8'))
  const electronVersion = (
    JSON.parse(await readFile(require.resolve('electron/package.json'), 'utf8')) as {
      version: string
    }
  ).version
  const outDir = await mkdtemp(join(tmpdir(), 'assent-electronegativity-'))
  const run = loadOfflineElectronegativity()
  // The tool then prints that it "could not retrieve updated translations":
  // that is the refused download, and expected.
  console.log(`electronegativity: scanning ${scannedDir} offline`)

  const raw = await run({
    input: scannedDir,
    output: join(outDir, 'electronegativity.sarif'),
    isSarif: true,
    isRelative: true,
    customScan: [],
    excludeFromScan: EXCLUDED_CHECKS,
    electronVersionOverride: electronVersion,
    parserPlugins: [],
  })
  const { findings, failures } = readElectronegativityResult(raw, { repoRoot, scannedDir })
  const verdict = evaluateAudit({ findings, failures, baseline })
  await writeFile(
    join(outDir, 'audit.json'),
    `${JSON.stringify({ electronVersion, findings, failures, verdict }, null, 2)}\n`,
  )

  console.log(formatVerdict(verdict))
  console.log(
    `electronegativity: ${findings.length} findings in total (Electron ${electronVersion})`,
  )
  console.log(`electronegativity: reports in ${outDir}`)
  if (!verdict.ok) process.exitCode = 1
}

main().catch((error: unknown) => {
  console.error(`audit:electron could not run: ${(error as Error)?.stack ?? String(error)}`)
  process.exitCode = 1
})
