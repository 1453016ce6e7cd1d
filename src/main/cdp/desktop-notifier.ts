import { execFile } from 'node:child_process'
import type { WaitNotice, WaitNotifier } from '../core/host-port.ts'

/** How long the desktop shows a notice, as the notification service takes
 *  it (ms); the service may keep it longer in its own list. */
export const DESKTOP_NOTICE_MS = 10_000

/** Runs a program with its arguments (never through a shell) and settles
 *  when it exits: `gdbus` in use. */
export type ProgramRunner = (
  program: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
) => Promise<void>

const runProgram: ProgramRunner = (program, args, env) =>
  new Promise((resolve, reject) => {
    execFile(program, [...args], { env, timeout: 5_000 }, (error) =>
      error ? reject(error) : resolve(),
    )
  })

/** `gdbus`, by its full path (GLib puts it there), never looked up on
 *  PATH: a folder on PATH may be one an agent's command can write (a
 *  project's `node_modules/.bin`, which `npm start` puts first), and a
 *  `gdbus` left there would run with the person's rights at every notice.
 *  Where it is missing, the call fails, and that is said once. */
const GDBUS_PROGRAM = '/usr/bin/gdbus'

export interface DesktopNotifierOptions {
  env?: NodeJS.ProcessEnv
  run?: ProgramRunner
  /** Told once when no notification service answers. */
  warn: (message: string) => void
}

/**
 * The CDP host's notices, through the desktop's notification service
 * (org.freedesktop.Notifications on the session bus), called with
 * `gdbus` from GLib. Where no session bus or no service answers, it says
 * so once and the person sees the workbench's cards only; a service that
 * starts later is still used.
 *
 * The body is escaped for the markup a notification service may render
 * (the specification's `body-markup`): a tool's name is the agent's text,
 * and must not become a link or formatting on the desktop.
 */
export class DesktopNotifier implements WaitNotifier {
  private readonly options: DesktopNotifierOptions
  private warned = false
  /** Settles when the last notice has been handed over (for tests). */
  private last: Promise<void> = Promise.resolve()

  constructor(options: DesktopNotifierOptions) {
    this.options = options
  }

  notify(notice: WaitNotice): void {
    const env = this.options.env ?? process.env
    if (!env.DBUS_SESSION_BUS_ADDRESS) {
      this.unavailable('there is no session bus (DBUS_SESSION_BUS_ADDRESS is not set)')
      return
    }
    const run = this.options.run ?? runProgram
    this.last = run(GDBUS_PROGRAM, notifyCall(notice), env).catch((error: unknown) =>
      this.unavailable(`the call failed: ${(error as Error).message.split('\n')[0] ?? ''}`),
    )
  }

  /** Resolves once the last notice was handed to the service, or failed. */
  settled(): Promise<void> {
    return this.last
  }

  private unavailable(why: string): void {
    if (this.warned) return
    this.warned = true
    this.options.warn(
      `no desktop notification service (org.freedesktop.Notifications) answered, so nothing waiting is notified outside the workbench: ${why}`,
    )
  }
}

/** `gdbus call` arguments for Notify(app_name, replaces_id, app_icon,
 *  summary, body, actions, hints, expire_timeout). Strings are written as
 *  GVariant text (JSON's string escapes are GVariant's). */
export function notifyCall(notice: WaitNotice): string[] {
  return [
    'call',
    '--session',
    '--dest',
    'org.freedesktop.Notifications',
    '--object-path',
    '/org/freedesktop/Notifications',
    '--method',
    'org.freedesktop.Notifications.Notify',
    JSON.stringify('Assent'),
    '0',
    JSON.stringify(''),
    JSON.stringify(notice.title),
    JSON.stringify(escapeMarkup(notice.body)),
    '@as []',
    '@a{sv} {}',
    String(DESKTOP_NOTICE_MS),
  ]
}

function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
