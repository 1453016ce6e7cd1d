import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeFlagsFor } from '../src/main/core/runtime-launcher.ts'
import { LISTEN_MARKER } from './fixtures/listen-probe.ts'
import { requireOrSkip } from './support/require-or-skip.ts'
import { RUNTIME_ENTRY, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { runNodeArgv, type ChildResult } from './support/integrity-helpers.ts'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'

/**
 * The runtime's secrets (bearer token, consent key, integrity key) reach it
 * over its IPC channel only. A process's argv and environment are readable by
 * other processes of the same user (ps, /proc) and land in crash dumps, so
 * neither may carry them, and the runtime inherits none of main's ASSENT_*
 * settings or NODE_OPTIONS (which could load code into it).
 */
const LISTEN_PROBE = fileURLToPath(new URL('./fixtures/listen-probe.ts', import.meta.url))

const PARENT_SECRET = 'parent-secret-5f0c2a9e'
const PARENT_ENV: Record<string, string> = {
  ASSENT_SOMETHING: PARENT_SECRET,
  NODE_OPTIONS: '--max-old-space-size=4321',
  // Not an ASSENT_* variable: the child inherits it, which shows the
  // environment read below really is the runtime's.
  PLAIN_INHERITED_MARKER: 'inherited-3b7d',
}

const hasProc = existsSync('/proc/self/environ')
const runsHere = requireOrSkip(
  'a /proc file system',
  hasProc ? undefined : 'no /proc/self/environ',
  'run this test on Linux',
)

let harness: RuntimeHarness
const saved = new Map<string, string | undefined>()

beforeAll(async () => {
  if (!runsHere) return
  // Set in this process's own environment, which is what the launcher
  // passes on by default (as main's would be).
  for (const [name, value] of Object.entries(PARENT_ENV)) {
    saved.set(name, process.env[name])
    process.env[name] = value
  }
  try {
    harness = await startHarness()
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
})
afterAll(async () => {
  await harness?.close()
})

/** Every text form a secret could be written in. */
function encodings(secret: string | Buffer): string[] {
  if (typeof secret === 'string') return [secret]
  return [secret.toString('base64url'), secret.toString('base64'), secret.toString('hex')]
}

function procFile(pid: number, name: 'cmdline' | 'environ'): Buffer {
  return readFileSync(`/proc/${pid}/${name}`)
}

function environVariables(environ: Buffer): Map<string, string> {
  const entries = environ
    .toString('utf8')
    .split('\0')
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const equals = entry.indexOf('=')
      return [entry.slice(0, equals), entry.slice(equals + 1)] as const
    })
  return new Map(entries)
}

describe.runIf(runsHere)('the runtime process’s argv and environment', () => {
  it('hold neither the bearer token, the consent key nor the integrity key', () => {
    const pid = harness.supervisor.pid
    expect(pid).toBeTypeOf('number')
    const { bearerToken, consentKey } = harness.connection()
    const secrets: Array<[string, string | Buffer]> = [
      ['bearer token', bearerToken],
      ['consent key', consentKey],
      ['integrity key', harness.integrityKey],
    ]
    for (const file of ['cmdline', 'environ'] as const) {
      const bytes = procFile(pid!, file)
      const text = bytes.toString('utf8')
      expect(text.length, file).toBeGreaterThan(0)
      for (const [name, secret] of secrets) {
        for (const form of encodings(secret)) {
          expect(text.includes(form), `${name} in /proc/<pid>/${file}`).toBe(false)
        }
        if (Buffer.isBuffer(secret)) {
          expect(bytes.includes(secret), `raw ${name} in /proc/<pid>/${file}`).toBe(false)
        }
      }
    }
    // The command line is node, its flags and the entry: nothing else.
    const argv = procFile(pid!, 'cmdline').toString('utf8').split('\0').filter(Boolean)
    expect(argv.at(-1)).toBe(RUNTIME_ENTRY)
  })

  it('inherits no ASSENT_* variable and no NODE_OPTIONS from its parent', () => {
    const variables = environVariables(procFile(harness.supervisor.pid!, 'environ'))
    // Control: an ordinary variable of the parent is there, so this is the
    // runtime's inherited environment and not an empty one.
    expect(variables.get('PLAIN_INHERITED_MARKER')).toBe('inherited-3b7d')
    expect([...variables.keys()].filter((name) => name.startsWith('ASSENT_'))).toEqual([])
    expect(variables.has('NODE_OPTIONS')).toBe(false)
    expect(procFile(harness.supervisor.pid!, 'environ').includes(PARENT_SECRET)).toBe(false)
  })
})

/** `node <args>` with no IPC channel, as someone starting it from a shell would. */
function runWithoutIpc(args: string[]): Promise<ChildResult> {
  return runNodeArgv(args, process.env, WAIT_TIMEOUT_MS)
}

describe('the runtime started without an IPC channel', () => {
  const flags = nodeFlagsFor(RUNTIME_ENTRY, process.version)

  it('exits with code 2 and never listens, since it has no safe way to receive its secrets', async () => {
    const result = await runWithoutIpc([...flags, '--import', LISTEN_PROBE, RUNTIME_ENTRY])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/start me with an IPC channel/)
    expect(result.stderr).not.toContain(LISTEN_MARKER)
    expect(result.stdout).toBe('')
  })

  it('(control) the listen probe does report a process that listens', async () => {
    const result = await runWithoutIpc([
      ...flags,
      '--import',
      LISTEN_PROBE,
      '-e',
      "require('node:net').createServer().listen(0, '127.0.0.1', () => process.exit(0))",
    ])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(LISTEN_MARKER)
  })
})
