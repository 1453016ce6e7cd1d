import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { claudeManagedAllowances } from './claude-managed-settings.ts'
import { codexOwnAllowances } from './codex-own-allowances.ts'

// The files an agent's own settings are read from as it starts lie where
// commands write (a workspace's `.codex/config.toml`, a Codex home in a
// folder a room may write). A named pipe there, made by a command still
// running, held the runtime's thread, every room's, until a writer came,
// and then the check read what that writer chose to say (nothing), while
// the agent would read whatever it said next. Each place is read without
// waiting, and a pipe counts as a file that cannot be read: the agent is
// refused, naming it.

let root: string
let writers: ChildProcess[] = []

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-own-files-pipe-')))
})
afterEach(() => {
  for (const writer of writers) writer.kill('SIGKILL')
  writers = []
  rmSync(root, { recursive: true, force: true })
})

/** A named pipe at `file`, which a process outside opens after a second
 *  and writes `said` to, again at each open, as a command would: what a
 *  blocking read gets (each check reads some files twice). */
function pipeAt(file: string, said: string): string {
  mkdirSync(dirname(file), { recursive: true })
  execFileSync('mkfifo', [file])
  writers.push(
    spawn('sh', ['-c', 'sleep 1; while :; do printf "%s" "$1" > "$2"; done', 'sh', said, file], {
      stdio: 'ignore',
    }),
  )
  return file
}

const home = () => join(root, 'home')
const workspace = () => join(root, 'workspace')
const codexMachine = () => join(root, 'etc', 'codex')
const claudeMachine = () => join(root, 'etc', 'claude-code')

const codexFound = () =>
  codexOwnAllowances({ HOME: home() }, workspace(), codexMachine()).join('\n')
const claudeFound = () => claudeManagedAllowances(claudeMachine()).join('\n')

const PLACES: ReadonlyArray<[string, () => string, () => string, string]> = [
  [
    "the workspace's .codex/config.toml",
    () => join(workspace(), '.codex', 'config.toml'),
    codexFound,
    'model = "x"',
  ],
  [
    "the Codex home's config.toml",
    () => join(home(), '.codex', 'config.toml'),
    codexFound,
    'model = "x"',
  ],
  [
    "the machine's managed_config.toml",
    () => join(codexMachine(), 'managed_config.toml'),
    codexFound,
    'model = "x"',
  ],
  [
    "Claude's managed-settings.json",
    () => join(claudeMachine(), 'managed-settings.json'),
    claudeFound,
    '{}',
  ],
  [
    "a drop-in of Claude's managed settings",
    () => join(claudeMachine(), 'managed-settings.d', 'x.json'),
    claudeFound,
    '{}',
  ],
]

describe("a named pipe where an agent's own settings are read", () => {
  it.each(PLACES)('%s: not waited on, and named', (_, place, found, said) => {
    mkdirSync(workspace(), { recursive: true })
    const pipe = pipeAt(place(), said)
    const began = performance.now()
    const named = found()
    expect(performance.now() - began).toBeLessThan(500)
    expect(named).toContain(pipe)
  })
})
