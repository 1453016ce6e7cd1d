import { programOf, simpleCommandsOf } from './held-inside.ts'
import type { PersonOnly } from './person-only.ts'

/**
 * Programs that write files their words do not name: the names come from
 * an archive they unpack (`tar -xf vendor.tgz`, `unzip x.zip`) or a patch
 * they apply (`patch -p1 < fix.diff`). What such an archive or patch
 * holds is the agent's to choose, and may be `.git/config`,
 * `.git/hooks/pre-commit` or a nested repository's; a grant for the very
 * command line, given on an innocent archive, answers for the next one
 * too. Per program, whether the words run it so (`tar -t` lists).
 */
const WRITES_NAMES_INSIDE: Readonly<Record<string, (rest: readonly string[]) => boolean>> = {
  tar: tarExtracts,
  gtar: tarExtracts,
  bsdtar: tarExtracts,
  // Every use but listing or testing an archive.
  unzip: (rest) => !rest.some((word) => /^-[A-Za-z]*[lZtv]/.test(word)),
  '7z': sevenZipExtracts,
  '7za': sevenZipExtracts,
  '7zz': sevenZipExtracts,
  '7zr': sevenZipExtracts,
  unrar: (rest) => rest.some((word) => word === 'x' || word === 'e'),
  cpio: (rest) => rest.some((word) => word === '--extract' || /^-[A-Za-z]*i/.test(word)),
  pax: (rest) => rest.some((word) => /^-[A-Za-z]*r/.test(word)),
  ar: (rest) => /^-?[A-Za-z]*x/.test(rest[0] ?? ''),
  jar: (rest) => /^-?[A-Za-z]*x/.test(rest[0] ?? ''),
  'dpkg-deb': (rest) =>
    rest.some((word) => /^(?:-x|-X|-R|--extract|--vextract|--raw-extract)$/.test(word)),
  patch: () => true,
}

/**
 * The person-only reason of a command that runs a program writing files
 * its words do not name (`WRITES_NAMES_INSIDE`), or null. Not for
 * Assent's own `run_command`: its sandbox keeps every git folder and file
 * that runs code read-only whatever the command writes, and moves aside
 * what it makes of them (made-person-only.ts). An external agent's command
 * runs in the agent's own sandbox, or none, and an MCP server's tool in
 * the server's: no door but the person may answer for what such a command
 * unpacks.
 */
export function writesUnnamed(
  touch: { toolName: string; mcpServerId?: string | undefined },
  readings: readonly { words: readonly string[] }[],
): PersonOnly | null {
  if (touch.toolName === 'run_command' && touch.mcpServerId === undefined) return null
  for (const command of simpleCommandsOf(readings)) {
    const found = programOf(command, (name) => Object.hasOwn(WRITES_NAMES_INSIDE, name))
    if (found === null || WRITES_NAMES_INSIDE[found.name]?.(found.rest) !== true) continue
    return {
      path: [found.name, ...found.rest].slice(0, 6).join(' '),
      class: 'unread-command',
      reason:
        "it writes files its words do not name (an archive or a patch holds their names), which nothing outside Assent's sandbox keeps out of git's folder",
    }
  }
  return null
}

/** `tar` extracting: `-x`, `--extract`, `--get`, or a first word of
 *  bundled letters holding `x` (`tar xzf a.tgz`, `tar -xvf a.tar`). */
function tarExtracts(rest: readonly string[]): boolean {
  const [first = ''] = rest
  if (/^-?[A-Za-z]*x[A-Za-z]*$/.test(first)) return true
  return rest.some((word) => word === '--extract' || word === '--get' || /^-[A-Za-z]*x/.test(word))
}

/** 7-Zip's `x` or `e` command, its first word that is no option. */
function sevenZipExtracts(rest: readonly string[]): boolean {
  const command = rest.find((word) => !word.startsWith('-'))
  return command === 'x' || command === 'e'
}
