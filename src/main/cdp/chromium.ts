import { existsSync } from 'node:fs'

export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
] as const

/** The features Playwright turns off whenever it launches Chromium
 *  (playwright-core's chromium switches). Chromium keeps only the last
 *  `--disable-features` it is given, so the one below repeats them all;
 *  tests/chromium-flags.test.ts compares this list with what the
 *  installed Playwright passes. */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
] as const

/** Browser UI that every window builds and nobody sees here: the address
 *  bar's WebUI popups, two pages of their own a window (one with the AI
 *  mode composebox), loaded at once. Headless there is no address bar, and
 *  an app window has none either; without them Chromium uses its native
 *  popup, if one were ever opened. */
export const UNSEEN_BROWSER_UI_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'] as const

/** Flags for every Chromium the CDP host starts: they keep it from
 *  reaching for a GPU or a network it does not have, and from building
 *  browser UI nobody sees. */
const COMMON_CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNSEEN_BROWSER_UI_FEATURES].join(',')}`,
] as const

/**
 * The flags for a Chromium started by a process running as `uid` (this
 * process's by default). Chromium's own sandbox stays on for everyone but
 * root: it refuses to start as root with it, so only there is
 * `--no-sandbox` passed, and the host says so once when it starts
 * (`chromiumSandboxNote`). Where there are no user ids (Windows: null) the
 * sandbox stays on.
 */
export function chromiumArgs(uid: number | null = process.getuid?.() ?? null): string[] {
  return [...(uid === 0 ? ['--no-sandbox'] : []), ...COMMON_CHROMIUM_ARGS]
}

/**
 * What every launch of the CDP host's Chromium passes to Playwright: the
 * flags, and whether Chromium keeps its sandbox. Playwright adds
 * `--no-sandbox` itself to every Chromium it starts unless told
 * `chromiumSandbox: true`, so without this the sandbox would be off for
 * every user, not only for root. Launching through this keeps the two in
 * step: the sandbox is kept wherever `chromiumArgs` does not turn it off.
 */
export function chromiumLaunchOptions(uid: number | null = process.getuid?.() ?? null): {
  args: string[]
  chromiumSandbox: boolean
} {
  const args = chromiumArgs(uid)
  return { args, chromiumSandbox: !args.includes('--no-sandbox') }
}

/** The one line the host logs at start when Chromium runs without its
 *  sandbox, or null when it keeps it. */
export function chromiumSandboxNote(
  uid: number | null = process.getuid?.() ?? null,
): string | null {
  return uid === 0
    ? 'assent cdp host: running as root, so Chromium starts without its own sandbox (--no-sandbox); run as an ordinary user to keep it'
    : null
}

/** The system Chromium, or undefined with the reason to show the person. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const override = env.ASSENT_CHROMIUM_PATH
  if (override) return existsSync(override) ? override : undefined
  return CHROMIUM_CANDIDATES.find((candidate) => existsSync(candidate))
}

export const CHROMIUM_MISSING =
  'Chromium was not found: install it (Debian: `apt-get install chromium fonts-noto-cjk`) or set ASSENT_CHROMIUM_PATH'
