import type { CommandSandboxPolicy } from './sandbox-policy.ts'

/**
 * The macOS Seatbelt profile (`sandbox-exec -p`) for one command under
 * `policy`: the same rules bubblewrap enforces on Linux, from the same
 * value. Everything is denied unless allowed below; the whole disk may be
 * read; files may be written only under the writable roots (and the
 * temporary folders and device files a process needs); the read-only paths
 * inside the roots and the hidden paths are denied after, and Seatbelt
 * lets the last matching rule win; there is no network, and no file is
 * made setuid or setgid.
 *
 * Unlike bubblewrap, Seatbelt denies a hidden folder rather than showing
 * it empty, and the command shares the machine's `/tmp` (confined to
 * writing there, not reading others' files in it), since macOS has no
 * private mount for it.
 */
export function seatbeltProfile(policy: CommandSandboxPolicy): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    // Only the services an ordinary command line needs (user and group
    // lookups, logging); never the security server, the keychain's door.
    '(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.logger") (global-name "com.apple.system.notification_center"))',
    '(allow file-read*)',
    '(allow file-write-data (literal "/dev/null") (literal "/dev/zero"))',
    '(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders"))',
  ]
  if (policy.writableRoots.length > 0) {
    lines.push(`(allow file-write* ${policy.writableRoots.map(subpath).join(' ')})`)
  }
  if (policy.readOnlyInside.length > 0) {
    lines.push(`(deny file-write* ${policy.readOnlyInside.map(subpath).join(' ')})`)
  }
  if (policy.hidden.length > 0) {
    const hidden = policy.hidden.map((entry) => subpath(entry.path)).join(' ')
    lines.push(`(deny file-read* file-write* ${hidden})`)
  }
  if (!policy.network) lines.push('(deny network*)')
  // No file made setuid or setgid anywhere, as on Linux (seccomp-filter.ts):
  // the bits outlive the sandbox, and a program the command made would give
  // the person's rights to any local user who runs it. Last, so it wins
  // over the writable roots' allow.
  lines.push('(deny file-write-setugid)')
  return `${lines.join('\n')}\n`
}

/** A path as a Seatbelt string: quoted, with `\` and `"` escaped, so no
 *  path can end the string and add a rule of its own. */
function subpath(path: string): string {
  return `(subpath "${path.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}")`
}
