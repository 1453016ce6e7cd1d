// What in a command line reaches the person's desktop session: the places
// where programs act as the person through a socket, for the person-only
// rule's reading of a command (shell-commands.ts).

/**
 * The variables that name the session's sockets: the display (X11's
 * `DISPLAY` and its cookie `XAUTHORITY`, Wayland's), the session bus
 * (through which the Secret Service hands out every stored password, and
 * other programs take orders), the SSH and GPG agents (which sign as the
 * person), and the folder they all lie in (`XDG_RUNTIME_DIR`). Set for a
 * command, or named as a word (`export DISPLAY`, `read DISPLAY`).
 *
 * Assent gives none of them to what it starts for an agent
 * (command-environment.ts), so a command that reaches the session names
 * it: with one set, or a socket's path (`SESSION_PLACES`).
 */
const SESSION_VARIABLES =
  /^(?:DISPLAY|WAYLAND_DISPLAY|WAYLAND_SOCKET|XAUTHORITY|DBUS_SESSION_BUS_ADDRESS|DBUS_STARTER_ADDRESS|SSH_AUTH_SOCK|GPG_AGENT_INFO|XDG_RUNTIME_DIR)(?:=|$)/

/**
 * Where the session's sockets are, as a word names them: X11's (in
 * `/tmp/.X11-unix`, and its abstract `@/tmp/.X11-unix/X0`), the person's
 * runtime folder (`/run/user/<uid>`: the session bus, Wayland, the agents,
 * PipeWire), the display's cookies (`.Xauthority`, `.ICEauthority`, and
 * `xauth`, which prints them), a D-Bus address (`unix:path=…`, `unix:abstract=…`), and X11 programs'
 * option naming a display (`-display :0`).
 */
const SESSION_PLACES =
  /\/tmp\/\.X11-unix|\/run\/user\/|(?:^|[/=])\.(?:X|ICE)authority$|^xauth$|unix:(?:path|abstract|dir|tmpdir|runtime)=|^--?display(?:=|$)/i

/**
 * The word of `command` that reaches the person's desktop session, or
 * null. A program there acts as the person: an X11 or Wayland client can
 * type and click in any window, Assent's protected window included, where
 * the person answers what needs them; the session bus hands out their
 * passwords; their agents sign. No grant, reviewer or webhook answers for
 * that, as none answers for a key (a command run in Assent's sandbox has
 * no network, no Unix-domain socket and a `/tmp` and `/run` of its own,
 * so it reaches none of them anyway).
 */
export function sessionHandleIn(command: readonly string[]): string | null {
  return command.find((word) => SESSION_VARIABLES.test(word) || SESSION_PLACES.test(word)) ?? null
}
