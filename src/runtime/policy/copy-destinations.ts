import { readOptions, type OptionSpec } from './option-words.ts'
import { programsRun } from './programs-run.ts'

// Which words of a command are what a program copies, moves or links, and
// which are where it puts them, for the person-only rule's reading of the
// paths such a command writes without naming them (copied-places.ts).

/** How a program that copies, moves or links reads its words. */
interface CopierSpec {
  options: OptionSpec
  /** Its options whose value is the folder everything goes into (`-t`). */
  target: readonly string[]
  /** Its options that keep each source's path under the destination
   *  (`cp --parents a/b dest/` writes `dest/a/b`, `rsync -R`). */
  keepsPaths: readonly string[]
  /** Whether a source may be read from where it will be named: a symbolic
   *  link's relative target is taken from the link's folder (`ln -s
   *  ../tmpl/git ~/.config/`). */
  fromDestination: boolean
  /** Whether a destination with a colon before its first slash is another
   *  machine's (`rsync -a x host:backup/`), nothing of this one. */
  remoteDestinations: boolean
}

/** GNU coreutils' cp (9.x), with BSD's letters (`-c`, `-N`, `-X`, `-h`)
 *  among the flags: none of them takes a value. */
const CP: CopierSpec = {
  options: {
    flags: 'abcdfHhilLNnPpRrsTuvXxZ',
    withValue: 'St',
    long: {
      ...{ archive: 'none', 'attributes-only': 'none', backup: 'optional', debug: 'none' },
      ...{ 'copy-contents': 'none', dereference: 'none', force: 'none', interactive: 'none' },
      ...{ link: 'none', 'no-clobber': 'none', 'no-dereference': 'none', parents: 'none' },
      ...{ preserve: 'optional', 'no-preserve': 'required', recursive: 'none' },
      ...{ reflink: 'optional', 'remove-destination': 'none', sparse: 'required' },
      ...{ 'strip-trailing-slashes': 'none', 'symbolic-link': 'none', suffix: 'required' },
      ...{ 'target-directory': 'required', 'no-target-directory': 'none', update: 'optional' },
      ...{ verbose: 'none', 'one-file-system': 'none', context: 'optional', help: 'none' },
      ...{ 'keep-directory-symlink': 'none', version: 'none' },
    },
    stopsAtOperand: false,
  },
  target: ['t', 'target-directory'],
  keepsPaths: ['parents'],
  fromDestination: false,
  remoteDestinations: false,
}

/** GNU coreutils' mv, with BSD's `-h`. */
const MV: CopierSpec = {
  ...CP,
  options: {
    flags: 'bfhinTuvZ',
    withValue: 'St',
    long: {
      ...{ backup: 'optional', debug: 'none', exchange: 'none', force: 'none' },
      ...{ interactive: 'none', 'no-clobber': 'none', 'no-copy': 'none', suffix: 'required' },
      ...{ 'strip-trailing-slashes': 'none', 'target-directory': 'required', help: 'none' },
      ...{ 'no-target-directory': 'none', update: 'optional', verbose: 'none' },
      ...{ context: 'none', version: 'none' },
    },
    stopsAtOperand: false,
  },
  keepsPaths: [],
}

/** GNU coreutils' install. (BSD's `-T tags` takes a value where GNU's
 *  `-T` does not: read as GNU's, the tags word is one more source, and
 *  the destination is still the last word.) */
const INSTALL: CopierSpec = {
  ...MV,
  options: {
    flags: 'bcCdDpsTvZ',
    withValue: 'gmoSt',
    long: {
      ...{ backup: 'optional', compare: 'none', debug: 'none', directory: 'none' },
      ...{ group: 'required', mode: 'required', owner: 'required', strip: 'none' },
      ...{ 'preserve-timestamps': 'none', 'strip-program': 'required', suffix: 'required' },
      ...{ 'target-directory': 'required', 'no-target-directory': 'none', verbose: 'none' },
      ...{ 'preserve-context': 'none', context: 'optional', help: 'none', version: 'none' },
    },
    stopsAtOperand: false,
  },
}

/** GNU coreutils' ln, with BSD's `-h` and `-w`. */
const LN: CopierSpec = {
  ...MV,
  options: {
    flags: 'bdFfhiLnPrsTvw',
    withValue: 'St',
    long: {
      ...{ backup: 'optional', directory: 'none', force: 'none', interactive: 'none' },
      ...{ logical: 'none', 'no-dereference': 'none', physical: 'none', relative: 'none' },
      ...{ suffix: 'required', symbolic: 'none', 'target-directory': 'required' },
      ...{ 'no-target-directory': 'none', verbose: 'none', help: 'none', version: 'none' },
    },
    stopsAtOperand: false,
  },
  fromDestination: true,
}

/** rsync's options that take a value (its `-T` is `--temp-dir`, not
 *  cp's `-T`); the others it has are read as flags. One it does not list
 *  leaves every word a destination (copied-places.ts). */
const RSYNC: CopierSpec = {
  options: {
    flags: '0468aAbcCdDEFgHhiIJkKlLmnNoOpPqrRsStUuvWxXyz',
    withValue: 'BefMT@',
    long: Object.fromEntries([
      ...[
        ...['rsh', 'rsync-path', 'filter', 'exclude', 'exclude-from', 'include'],
        ...['include-from', 'files-from', 'temp-dir', 'compare-dest', 'copy-dest'],
        ...['link-dest', 'backup-dir', 'suffix', 'chmod', 'chown', 'usermap', 'groupmap'],
        ...['block-size', 'max-delete', 'max-size', 'min-size', 'max-alloc', 'partial-dir'],
        ...['timeout', 'contimeout', 'modify-window', 'log-file', 'log-file-format'],
        ...['out-format', 'password-file', 'bwlimit', 'write-batch', 'only-write-batch'],
        ...['read-batch', 'protocol', 'iconv', 'checksum-choice', 'compress-choice'],
        ...['compress-level', 'skip-compress', 'outbuf', 'remote-option', 'sockopts'],
        ...['port', 'address', 'stop-after', 'stop-at', 'copy-as', 'early-input', 'info'],
        ...['debug', 'checksum-seed'],
      ].map((name) => [name, 'required'] as const),
      ...[
        ...['verbose', 'quiet', 'checksum', 'archive', 'recursive', 'relative', 'backup'],
        ...['update', 'links', 'copy-links', 'copy-dirlinks', 'keep-dirlinks', 'hard-links'],
        ...['perms', 'executability', 'acls', 'xattrs', 'owner', 'group', 'devices'],
        ...['specials', 'times', 'omit-dir-times', 'omit-link-times', 'dry-run', 'whole-file'],
        ...['one-file-system', 'existing', 'ignore-existing', 'remove-source-files'],
        ...['delete', 'delete-before', 'delete-during', 'delete-delay', 'delete-after'],
        ...['delete-excluded', 'ignore-errors', 'force', 'partial', 'delay-updates'],
        ...['prune-empty-dirs', 'numeric-ids', 'ignore-times', 'size-only', 'fuzzy'],
        ...['compress', 'cvs-exclude', 'from0', 'protect-args', 'secluded-args', 'stats'],
        ...['human-readable', 'progress', 'itemize-changes', 'list-only', 'ipv4', 'ipv6'],
        ...['version', 'help', 'dirs', 'mkpath', 'inplace', 'append', 'append-verify'],
        ...['sparse', 'preallocate', 'super', 'fake-super', 'safe-links', 'munge-links'],
        ...['copy-unsafe-links', 'no-implied-dirs', 'atimes', 'crtimes', 'open-noatime'],
        ...['8-bit-output', 'blocking-io', 'msgs2stderr', 'no-motd', 'trust-sender'],
      ].map((name) => [name, 'none'] as const),
    ]),
    stopsAtOperand: false,
  },
  target: [],
  keepsPaths: ['R', 'relative'],
  fromDestination: false,
  remoteDestinations: true,
}

/** The programs read, by name: coreutils' own, and the names Homebrew
 *  gives them beside macOS's (`gcp`). */
const COPIERS: Readonly<Record<string, CopierSpec>> = {
  cp: CP,
  gcp: CP,
  mv: MV,
  gmv: MV,
  install: INSTALL,
  ginstall: INSTALL,
  ln: LN,
  gln: LN,
  rsync: RSYNC,
}

/** One run of a program that copies, moves or links: its words that are
 *  what it takes, and those that may be where it puts them. */
export interface CopyRun {
  program: string
  sources: string[]
  destinations: string[]
  keepsPaths: boolean
  fromDestination: boolean
  remoteDestinations: boolean
}

/**
 * Every copy, move or link the command lines run (behind `sudo`, `env`,
 * `timeout`, … too, where shell-commands.ts finds a program). Its
 * destination is the folder its `-t` names, or else its last operand.
 * Where its options are not all read (one it does not know, which may
 * take the next word as its value, or more than are read), which word is
 * the destination is not known: every word that is no option is taken as
 * a source and as a destination, which only judges more.
 */
export function copiesRun(readings: readonly { words: readonly string[] }[]): CopyRun[] {
  return programsRun(readings, (name) =>
    Object.hasOwn(COPIERS, name) ? () => true : undefined,
  ).flatMap(({ name, rest }) => {
    const spec = COPIERS[name]
    return spec === undefined ? [] : [{ program: name, ...copyOf(spec, rest) }]
  })
}

function copyOf(spec: CopierSpec, rest: readonly string[]): Omit<CopyRun, 'program'> {
  const read = readOptions(rest, 0, spec.options)
  const named = {
    keepsPaths: read.options.some(({ name }) => spec.keepsPaths.includes(name)),
    fromDestination: spec.fromDestination,
    remoteDestinations: spec.remoteDestinations,
  }
  const targets = read.options.flatMap(({ name, value }) =>
    spec.target.includes(name) && value !== null ? [value] : [],
  )
  const operands = read.operands.map((at) => rest[at] ?? '')
  if (read.unknown !== null || read.stopped !== null) {
    const words = [...targets, ...rest.filter((word) => !word.startsWith('-'))]
    return { sources: words, destinations: words, ...named }
  }
  if (targets.length > 0) return { sources: operands, destinations: targets, ...named }
  return { sources: operands.slice(0, -1), destinations: operands.slice(-1), ...named }
}
