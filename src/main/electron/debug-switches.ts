/**
 * Switches that would let another process drive or inspect the app: a
 * DevTools remote debugging endpoint (Chromium) or the Node inspector; and
 * switches that weaken it (WEAKENING_SWITCHES). The first two
 * could click "Allow" in the protected window or read the consent key from
 * main's memory, so a release build refuses to start with any of them,
 * packaged or not. The fuses (`enableNodeCliInspectArguments` off) disable
 * the Node ones as well; this check also covers the Chromium ones and says
 * why it stopped.
 *
 * Gated on the build-time flavour, never on `app.isPackaged`: Electron
 * derives that from the executable's file name (App::IsPackaged in
 * shell/browser/api/electron_api_app.cc: anything not named `electron`, or
 * ELECTRON_FORCE_IS_PACKAGED set), so a packaged app renamed `electron`
 * would count as unpackaged and accept a debugger.
 */

const CHROMIUM_DEBUG_SWITCHES = ['remote-debugging-port', 'remote-debugging-pipe'] as const

/**
 * Switches that take a release build's defences down rather than attach to
 * it: `--no-sandbox` and `--disable-gpu-sandbox` run the renderers or the
 * GPU process outside Chromium's sandbox (a compromised page is then a
 * process of the person's), and `--js-flags` hands V8 options to every
 * process (V8 flags can turn off its own hardening). Refused like the
 * debugging switches: a shortcut with one of them must not start quietly
 * weaker.
 */
const WEAKENING_SWITCHES = [
  'no-sandbox',
  'disable-gpu-sandbox',
  'js-flags',
  // Every renderer in the browser process: no renderer sandbox at all.
  'single-process',
  // Linux renderers without their seccomp-bpf filter.
  'disable-seccomp-filter-sandbox',
  // The GPU process in the browser process, as `--disable-gpu-sandbox`.
  'in-process-gpu',
] as const

/**
 * Switches that put a program in front of a child process
 * (`--renderer-cmd-prefix`, `--utility-cmd-prefix`, `--gpu-launcher`,
 * `--zygote-cmd-prefix`): "useful values might be 'valgrind' or 'xterm -e
 * gdb --args'" (Chromium's content_switches.cc). The runtime runs as a
 * utility process holding the consent key, so a wrapper there is a
 * debugger on it. By their endings, as `inspect*` is by its start, so a
 * wrapper switch added later is refused too.
 */
function isWrapperSwitch(name: string): boolean {
  return name.endsWith('-cmd-prefix') || name.endsWith('-launcher')
}

/** The wrapper switches Chromium reads today, for `hasSwitch` (which sees
 *  switches appended in code, not only argv). */
const WRAPPER_SWITCHES = [
  'renderer-cmd-prefix',
  'utility-cmd-prefix',
  'gpu-launcher',
  'zygote-cmd-prefix',
  'ppapi-plugin-launcher',
] as const

/** Chromium reads `--name`, `-name` and (on Windows) `/name`, with or without
 *  `=value`, and matches names case-insensitively on Windows. */
function switchName(arg: string, platform: NodeJS.Platform): string | undefined {
  const prefixes = platform === 'win32' ? ['--', '-', '/'] : ['--', '-']
  const prefix = prefixes.find((candidate) => arg.startsWith(candidate))
  if (prefix === undefined) return undefined
  const name = arg.slice(prefix.length).split('=')[0] ?? ''
  return name.trim().toLowerCase()
}

function isDebugSwitch(name: string): boolean {
  return (
    (CHROMIUM_DEBUG_SWITCHES as readonly string[]).includes(name) ||
    (WEAKENING_SWITCHES as readonly string[]).includes(name) ||
    isWrapperSwitch(name) ||
    name.startsWith('inspect')
  )
}

export interface CommandLineFacts {
  /** `process.argv` of the main process. */
  argv: readonly string[]
  /** `app.commandLine.hasSwitch`: also sees switches appended in code. */
  hasSwitch: (name: string) => boolean
  platform: NodeJS.Platform
}

/**
 * Every debugging switch present, in the form it was given. Scans the whole
 * argv, including after a bare `--`: a false refusal of a packaged build is
 * cheap, a debugger attached to it is not.
 */
export function findDebugSwitches(facts: CommandLineFacts): string[] {
  const found = facts.argv.filter((arg) => {
    const name = switchName(arg, facts.platform)
    return name !== undefined && isDebugSwitch(name)
  })
  for (const name of [
    ...CHROMIUM_DEBUG_SWITCHES,
    ...WEAKENING_SWITCHES,
    ...WRAPPER_SWITCHES,
    'inspect',
    'inspect-brk',
    'inspect-port',
  ]) {
    if (facts.hasSwitch(name) && !found.some((arg) => switchName(arg, facts.platform) === name)) {
      found.push(`--${name}`)
    }
  }
  return found
}

/** The switches that stop a release build, or none when it may start (a
 *  development build always may: the smoke scenario drives it over CDP). */
export function refusedDebugSwitches(
  facts: CommandLineFacts & { developmentBuild: boolean },
): string[] {
  if (facts.developmentBuild) return []
  return findDebugSwitches(facts)
}
