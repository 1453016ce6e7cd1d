import { BASE_AGENT_ENVIRONMENT } from '../../contracts/agents-config.ts'

/**
 * The environment a command the agent runs gets: only the names of
 * `BASE_AGENT_ENVIRONMENT` (PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_ALL,
 * LC_CTYPE, TERM, TZ, TMPDIR), copied from the runtime's environment where
 * set; the same list every process Assent starts for an agent gets.
 *
 * An allowlist, not a blocklist: the person's desktop hands its sessions
 * handles that let any process script it (DISPLAY, WAYLAND_DISPLAY and
 * XAUTHORITY reach the display, DBUS_SESSION_BUS_ADDRESS and
 * XDG_RUNTIME_DIR the session bus and through it the keychain,
 * SSH_AUTH_SOCK the SSH agent), and new ones appear with every desktop. A
 * command the person allowed was allowed for what its argv says, not for
 * what those would let it do behind their back. A variable a command
 * really needs belongs in the command line the person approves
 * (`env NAME=value program`).
 */
export function commandEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const name of BASE_AGENT_ENVIRONMENT) {
    const value = source[name]
    if (value !== undefined) env[name] = value
  }
  return env
}
