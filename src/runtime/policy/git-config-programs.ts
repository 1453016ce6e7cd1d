// The settings whose value git runs as a program (git-config(1)), and the
// files such a value names. A config may name a script in the workspace as
// one (`core.fsmonitor = tools/fsmonitor.sh`, `filter.x.clean =
// ./scripts/clean.sh`, `alias.lint = !tools/lint.sh`): git runs it, from
// the repository's top, when the person runs git there, so changing it is
// changing what git runs, as a hook is.

/** Per section (lower-cased), the keys whose value git runs; `*` is every
 *  key of the section. A key is matched whatever the subsection between
 *  them (`diff.<driver>.textconv`, `gpg.ssh.program`). */
const PROGRAM_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    // `alternateRefsCommand`: run from the top at each fetch or push
    // received, in a repository with alternates (`clone --shared`,
    // `--reference`).
    core: [
      'fsmonitor',
      'pager',
      'editor',
      'sshcommand',
      'askpass',
      'gitproxy',
      'alternaterefscommand',
    ],
    // Run by `git help --web` and `git instaweb`.
    help: ['browser'],
    instaweb: ['browser', 'httpd'],
    // The hooks a config names (`hook.<name>.command`), where a git that
    // reads config-based hooks runs them at their event.
    hook: ['command'],
    sequence: ['editor'],
    diff: ['external', 'command', 'textconv'],
    difftool: ['cmd', 'path'],
    mergetool: ['cmd', 'path'],
    merge: ['driver'],
    filter: ['clean', 'smudge', 'process'],
    credential: ['helper'],
    gpg: ['program', 'defaultkeycommand'],
    alias: ['*'],
    pager: ['*'],
    interactive: ['difffilter'],
    web: ['browser'],
    browser: ['cmd', 'path'],
    man: ['cmd', 'path'],
    sendemail: ['sendmailcmd', 'tocmd', 'cccmd', 'smtpserver'],
    remote: ['receivepack', 'uploadpack'],
    submodule: ['update'],
    trailer: ['command', 'cmd'],
    guitool: ['cmd'],
    uploadpack: ['packobjectshook'],
  }).map(([section, keys]) => [section, new Set(keys)]),
)

/** Whether git runs the value of `key` in `section` (both lower-cased). */
export function runsProgram(section: string, key: string): boolean {
  const keys = PROGRAM_KEYS.get(section)
  return keys !== undefined && (keys.has('*') || keys.has(key))
}

/** At most this many files are taken from one value. */
const MAX_FILES_PER_VALUE = 8

/**
 * The files a program setting's value names, as written: each word that
 * holds a `/` (a program a path names, run from the repository's top, or
 * a file it is given), not a URL. A bare word is a program git finds on
 * the PATH, not in the workspace. Words are split wherever a shell would
 * end one, `=` included (`--file=./x`), so every path the value may run or
 * hand to what it runs is found; a word that is not one names nothing
 * there and costs nothing.
 */
export function filesNamedByProgram(value: string): string[] {
  const words = value
    .replace(/^!/, '')
    .split(/[\s;|&()<>`'"=]+/)
    .filter((word) => word.includes('/') && !word.includes('://') && !word.startsWith('-'))
  return words.slice(0, MAX_FILES_PER_VALUE)
}
