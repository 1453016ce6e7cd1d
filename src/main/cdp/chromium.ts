import { existsSync } from 'node:fs'

export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
] as const

/** Flags for Chromium on these machines: running as root needs no-sandbox;
 *  the rest keep it from reaching for the network it does not have. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
] as const

/** The system Chromium, or undefined with the reason to show the person. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const override = env.ASSENT_CHROMIUM_PATH
  if (override) return existsSync(override) ? override : undefined
  return CHROMIUM_CANDIDATES.find((candidate) => existsSync(candidate))
}

export const CHROMIUM_MISSING =
  'Chromium was not found: install it (Debian: `apt-get install chromium fonts-noto-cjk`) or set ASSENT_CHROMIUM_PATH'
