import { namedCredentialPlace } from './environment-credentials.ts'
import { SENSITIVE_RULES, type SensitiveClass, type SensitiveRule } from './sensitive-path-rules.ts'

/**
 * Which rule of the table (sensitive-path-rules.ts) a path falls under:
 * the paths a change to which needs a person every time, and a read of
 * some of which asks too.
 *
 * Matching is on path segments and the base name, lower-cased, so
 * `/home/a/.SSH/config` matches on a case-insensitive file system and
 * `notes/ssh-tips.md` does not. Both separators split segments, so the
 * answer is the same for a path written on either platform. A segment is
 * also read as the file systems Assent runs on read it (`segmentAsStored`,
 * `mayBeShortName`): `.git.`, `.git::$INDEX_ALLOCATION`, `GIT~1` and
 * `.git` with an invisible character in it all name `.git` somewhere.
 */

export interface SensitiveFinding {
  class: SensitiveClass
  rule: SensitiveRule
  /** Why, in English, finishing the sentence "<path>: …". */
  reason: string
  /** Whether a read of it asks too (the rule's `readAsks`, and a git
   *  config anywhere in .git: a remote's URL there can carry a token). */
  readAsks: boolean
}

const FOLDER_RULES = SENSITIVE_RULES.filter((rule) => rule.match === 'folder').map(
  // Paths are compared lower-cased; so are the entries, some written in
  // the case their tool uses (`Library/Keychains`).
  (rule, order) => ({ rule, segments: rule.value.toLowerCase().split('/'), order }),
)
/** How many names the longest folder rule spans (`.local/share/keyrings`
 *  spans three): a rule matches no run of names longer than this. */
export const LONGEST_FOLDER_RULE_SEGMENTS = Math.max(
  ...FOLDER_RULES.map((entry) => entry.segments.length),
)
/** The folder rules by their first segment: a path is looked up once per
 *  segment, not matched against every rule (the sandbox's walk asks for
 *  every name in the workspace). */
const FOLDER_RULES_BY_FIRST = new Map<string, (typeof FOLDER_RULES)[number][]>()
for (const entry of FOLDER_RULES) {
  const first = entry.segments[0] ?? ''
  FOLDER_RULES_BY_FIRST.set(first, [...(FOLDER_RULES_BY_FIRST.get(first) ?? []), entry])
}
const NAME_RULE_LIST = SENSITIVE_RULES.filter((rule) => rule.match === 'name')
// Looked up by the lower-cased name, as paths are compared; some are
// written in the case their tool uses (`.Xauthority`).
const NAME_RULES = new Map(NAME_RULE_LIST.map((rule) => [rule.value.toLowerCase(), rule]))
const PATTERN_RULES = SENSITIVE_RULES.filter((rule) => rule.match === 'pattern').map((rule) => ({
  rule,
  pattern: new RegExp(rule.value),
}))

/** A version control system's config in its folder: a remote's URL there
 *  can carry a token (`.git/config`, `.hg/hgrc`, `.jj/repo/config.toml`). */
const VCS_CONFIGS: ReadonlySet<string> = new Set(['config', 'hgrc', 'config.toml'])

/**
 * The rule `p` falls under, or null: the table's, or, for an absolute path
 * in a credential place the person's environment moved away from its
 * usual name (environment-credentials.ts: `$GNUPGHOME`, `$XDG_CONFIG_HOME/gh`),
 * a credential rule naming that place, unless the table finds a credential
 * already.
 */
export function sensitivePath(p: string): SensitiveFinding | null {
  const fromTable = tableRuleOf(p)
  if (fromTable?.class === 'credentials') return fromTable
  const named = namedCredentialPlace(p)
  if (named === null) return fromTable
  const why = `it holds credentials (${named.variable} names ${named.place})`
  const rule: SensitiveRule = {
    class: 'credentials',
    match: 'folder',
    value: named.place,
    readAsks: true,
    why,
  }
  return found(rule, true)
}

function tableRuleOf(p: string): SensitiveFinding | null {
  const split = p
    .toLowerCase()
    .split(/[\\/]+/)
    .filter((s) => s !== '')
  // Most paths have no segment stored otherwise than written: one test of
  // the whole path spares reading each segment again.
  const segments = STORED_OTHERWISE.test(p) ? split.map(segmentAsStored) : split
  const base = segments.at(-1)
  if (base === undefined) return null
  // Only a path with a `~` can hold a short name: the rest compare as
  // they are, which keeps the sandbox's walk of every name cheap.
  const short = p.includes('~')
  const same = short ? sameSegment : (written: string, ruled: string) => written === ruled

  const folderRule = short ? firstFolderRuleByScan(segments, same) : firstFolderRule(segments)
  if (folderRule !== null) {
    return found(
      folderRule,
      folderRule.readAsks || (folderRule.class === 'git' && VCS_CONFIGS.has(base)),
    )
  }
  const named =
    NAME_RULES.get(base) ??
    (short ? NAME_RULE_LIST.find((rule) => mayBeShortName(base, rule.value)) : undefined)
  if (named) return found(named, named.readAsks)
  for (const { rule, pattern } of PATTERN_RULES) {
    if (pattern.test(base)) return found(rule, rule.readAsks)
  }
  return null
}

/** Why a change to `p` needs a person every time, or null. */
export function sensitivePathReason(p: string): string | null {
  return sensitivePath(p)?.reason ?? null
}

/** The first folder rule, in the table's order, whose segments stand in
 *  `segments` consecutively anywhere; each compared as written. */
function firstFolderRule(segments: readonly string[]): SensitiveRule | null {
  let best: (typeof FOLDER_RULES)[number] | null = null
  for (let start = 0; start < segments.length; start += 1) {
    for (const entry of FOLDER_RULES_BY_FIRST.get(segments[start] ?? '') ?? []) {
      if (best !== null && entry.order >= best.order) continue
      if (entry.segments.every((segment, i) => segments[start + i] === segment)) best = entry
    }
  }
  return best?.rule ?? null
}

/** The same, each rule tried in turn, for segments that may be short
 *  names of the rule's (`GIT~1`), which no lookup by name finds. */
function firstFolderRuleByScan(
  segments: readonly string[],
  same: (written: string, ruled: string) => boolean,
): SensitiveRule | null {
  for (const { rule, segments: folder } of FOLDER_RULES) {
    if (containsRun(segments, folder, same)) return rule
  }
  return null
}

/** Whether `segments` holds `run` as consecutive segments, anywhere. */
function containsRun(
  segments: readonly string[],
  run: readonly string[],
  same: (written: string, ruled: string) => boolean,
): boolean {
  for (let start = 0; start + run.length <= segments.length; start += 1) {
    if (run.every((segment, i) => same(segments[start + i] ?? '', segment))) return true
  }
  return false
}

function sameSegment(written: string, ruled: string): boolean {
  return written === ruled || mayBeShortName(written, ruled)
}

/** Characters HFS+ leaves out of a name when it compares two (joiners,
 *  direction marks, the byte-order mark): `.g\u200cit` opens `.git` there. */
const IGNORED_BY_HFS = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu

/**
 * A lower-cased segment as the file system stores the name it opens,
 * wherever Assent runs: NFC (macOS keeps names decomposed), without what
 * HFS+ ignores, without an NTFS stream (`.git::$INDEX_ALLOCATION` is the
 * folder `.git`) and without the trailing dots and spaces Windows drops
 * (`.git.` and `.git ` are `.git`). Git refuses these spellings on every
 * platform for the same reason. `.` and `..` stay as they are.
 */
export function segmentAsStored(segment: string): string {
  if (segment === '.' || segment === '..') return segment
  let stored = segment.normalize('NFC').replace(IGNORED_BY_HFS, '')
  const stream = stored.indexOf(':')
  if (stream > 0) stored = stored.slice(0, stream)
  const trimmed = stored.replace(/[. ]+$/u, '')
  return trimmed === '' ? stored : trimmed
}

/** What may make a path's segment stored otherwise than written: a
 *  character outside printable ASCII, a colon, a dot or space that ends a
 *  segment. */
const STORED_OTHERWISE = /[^\x20-\x7e]|:|[. ](?:[\\/]|$)/u

/** An NTFS short (8.3) name: up to six characters, `~`, a number, and
 *  up to three of an extension. */
const SHORT_NAME = /^([^~]{1,6})~[1-9][0-9]{0,5}(?:\.[^.]{0,3})?$/u

/**
 * Whether the lower-cased segment `written` may be the NTFS short name
 * Windows gave `long` (`git~1` for `.git`, `github~1` for `.github`):
 * its stem begins what is left of the long name without dots and spaces,
 * or is the hashed form (the long name's first two characters and four
 * hexadecimal digits). A short name could stand for several long ones;
 * the rule takes the one that needs the person, failing closed.
 */
export function mayBeShortName(written: string, long: string): boolean {
  // Checked first: this runs for every segment against every entry.
  if (!written.includes('~')) return false
  const stem = SHORT_NAME.exec(written)?.[1]
  if (stem === undefined) return false
  const kept = long.replace(/[. ]/gu, '')
  if (kept.startsWith(stem)) return true
  return (
    stem.length === 6 && kept.startsWith(stem.slice(0, 2)) && /^[0-9a-f]{4}$/u.test(stem.slice(2))
  )
}

function found(rule: SensitiveRule, readAsks: boolean): SensitiveFinding {
  return { class: rule.class, rule, reason: rule.why, readAsks }
}
