/**
 * Recognisers for commands whose danger is visible in the command line
 * itself. They are deliberately broad and case-insensitive (on a
 * case-insensitive file system `RM` runs `rm`): a false alarm costs one more
 * question to a person, a miss can cost a disk. They are a first line only;
 * a command that does not match is not thereby safe, which is why commands
 * still ask under every policy that asks.
 */

/** What precedes a program name: start, whitespace, a shell separator, a
 *  subshell or quote, or a directory (`/bin/rm`). */
const WORD_START = String.raw`(?:^|[\s;&|(\x60'"/])`

const DESTRUCTIVE_PATTERNS: readonly RegExp[] = [
  // rm with -r, -R, -rf, -fr, --recursive anywhere before the next separator
  new RegExp(
    String.raw`${WORD_START}rm\s+(?:[^;&|\n]*\s)?(?:-[a-z]*r[a-z]*|--recursive)(?=$|[\s;&|'"])`,
    'i',
  ),
  new RegExp(String.raw`${WORD_START}mkfs(?:\.[a-z0-9]+)?(?=$|[\s;&|'"])`, 'i'),
  new RegExp(String.raw`${WORD_START}dd\s[^;&|\n]*\bof=`, 'i'),
  new RegExp(String.raw`${WORD_START}(?:shred|wipefs)(?=$|[\s;&|'"])`, 'i'),
  new RegExp(String.raw`${WORD_START}find\s[^;&|\n]*\s-delete(?=$|[\s;&|'"])`, 'i'),
  /\d?>\s*\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk)/i,
]

const SHELLS = String.raw`(?:ba|z|k|da|fi|c|tc)?sh|python[0-9.]*|perl|ruby|node|php`
const DOWNLOADERS = String.raw`(?:curl|wget|fetch)`

const DOWNLOAD_TO_SHELL_PATTERNS: readonly RegExp[] = [
  // curl … | sh, wget -qO- … | sudo bash, curl … | /bin/sh -s
  new RegExp(
    String.raw`${WORD_START}${DOWNLOADERS}\b[^|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:\S*/)?(?:${SHELLS})(?=$|[\s;&|'"])`,
    'i',
  ),
  // bash <(curl …), source <(wget …)
  new RegExp(String.raw`<\(\s*${DOWNLOADERS}\b`, 'i'),
  // sh -c "$(curl …)", eval `wget …`
  new RegExp(String.raw`(?:\$\(|\x60)\s*${DOWNLOADERS}\b`, 'i'),
]

/** The command line as one string, the way a shell would see it, so a
 *  pattern hidden inside `sh -c "…"` is still found. */
export function commandLine(argv: readonly string[]): string {
  return argv.join(' ')
}

/** Recursive deletes, file-system creation, raw writes to disks. */
export function isDestructiveCommand(argv: readonly string[]): boolean {
  const line = commandLine(argv)
  return DESTRUCTIVE_PATTERNS.some((pattern) => pattern.test(line))
}

/** A download handed straight to an interpreter: whatever the server sends
 *  runs, and nobody reviewed it. */
export function pipesDownloadToShell(argv: readonly string[]): boolean {
  const line = commandLine(argv)
  return DOWNLOAD_TO_SHELL_PATTERNS.some((pattern) => pattern.test(line))
}
