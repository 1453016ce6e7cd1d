import { randomBytes } from 'node:crypto'
import { mkdtemp, mkdir, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RuntimeClient } from '../../src/main/core/runtime-client.ts'
import { waitFor } from '../../scripts/smoke/wait.ts'
import { RUNTIME_READY_TIMEOUT_MS, WAIT_TIMEOUT_MS } from '../../scripts/test-timing.ts'
import { ChildProcessLauncher } from '../../src/main/core/runtime-launcher.ts'
import {
  RuntimeSupervisor,
  type RuntimeConnection,
} from '../../src/main/core/runtime-supervisor.ts'
import { mintConsentToken } from '../../src/consent/consent-token.ts'
import type { ApprovalDecision } from '../../src/contracts/consent.ts'
import type { PermissionMode } from '../../src/contracts/policy-axes.ts'
import type { RollbackAnchorKeeper } from '../../src/main/core/rollback-anchor-keeper.ts'
import { fileRollbackAnchor } from './test-secrets.ts'
import { PROJECT_ROOT } from '../../src/main/cdp/built-assets.ts'
import { builtPath } from '../../src/main/electron/app-layout.ts'

export const RUNTIME_ENTRY = fileURLToPath(new URL('../../src/runtime/main.ts', import.meta.url))
/** The bundle the app forks, as the Electron host finds it. */
export const BUILT_RUNTIME_ENTRY = builtPath(PROJECT_ROOT, 'runtimeEntry')

export interface RuntimeHarness {
  root: string
  dataDir: string
  workspace: string
  /** The integrity key every start of this harness's runtime gets. */
  integrityKey: Buffer
  /** The data folder's rollback anchor, as main keeps it. */
  rollbackAnchor: RollbackAnchorKeeper
  supervisor: RuntimeSupervisor
  connection: () => RuntimeConnection
  client: RuntimeClient
  mintApproval(approvalId: string, decision: ApprovalDecision, actionDigest: string): string
  mintPermission(fields: {
    roomId: string
    clientRequestId: string
    expectedRevision: number
    mode: PermissionMode
    acceptsReplacedWorkspace?: true
    resealsRoom?: true
  }): string
  restart(): Promise<void>
  close(): Promise<void>
}

/** A real runtime child process on a loopback port, with a throwaway data
 *  dir and workspace, started the way main starts it. Its integrity key is
 *  random and fixed for the harness (restarts reuse it, as the keychain
 *  would), and its rollback anchor is in the file store beside the
 *  database; pass `integrityKey` and `rollbackAnchor` to use a real
 *  SecretStore's. */
export async function startHarness(
  options: {
    approvalTtlMs?: number
    /** Each phase of an ordinary question's wait (at least 1 000 ms). */
    questionPhaseMs?: number
    root?: string
    integrityKey?: Buffer
    rollbackAnchor?: RollbackAnchorKeeper
    mcpConfigPath?: string
    /** The runtime's entry: its source unless a test runs the built one. */
    runtimeEntry?: string
  } = {},
): Promise<RuntimeHarness> {
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'assent-it-')))
  const dataDir = join(root, 'data')
  const workspace = join(root, 'workspace')
  await mkdir(workspace, { recursive: true })
  const integrityKey = options.integrityKey ?? randomBytes(32)
  const rollbackAnchor = options.rollbackAnchor ?? fileRollbackAnchor(dataDir)
  const supervisor = new RuntimeSupervisor({
    launcher: new ChildProcessLauncher(options.runtimeEntry ?? RUNTIME_ENTRY),
    dataDir,
    integrityKey,
    rollbackAnchor,
    restart: false,
    readyTimeoutMs: RUNTIME_READY_TIMEOUT_MS,
    scopedRoots: [workspace],
    ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
    ...(options.questionPhaseMs === undefined ? {} : { questionPhaseMs: options.questionPhaseMs }),
    ...(options.mcpConfigPath === undefined ? {} : { mcpConfigPath: options.mcpConfigPath }),
  })
  await supervisor.start()
  const connection = () => {
    const current = supervisor.current
    if (!current) throw new Error('runtime not running')
    return current
  }
  return {
    root,
    dataDir,
    workspace,
    integrityKey,
    rollbackAnchor,
    supervisor,
    connection,
    client: new RuntimeClient(() => supervisor.current),
    mintApproval: (approvalId, decision, actionDigest) =>
      mintConsentToken({
        key: connection().consentKey,
        now: Date.now(),
        binding: {
          kind: 'approval',
          subject: { approvalId, decision, actionDigest, instanceId: connection().instanceId },
        },
      }),
    mintPermission: (fields) =>
      mintConsentToken({
        key: connection().consentKey,
        now: Date.now(),
        binding: {
          kind: 'room-permission',
          subject: { ...fields, instanceId: connection().instanceId },
        },
      }),
    async restart() {
      await supervisor.stop()
      await supervisor.start()
    },
    async close() {
      await supervisor.stop()
      if (!options.root) await rm(root, { recursive: true, force: true })
    },
  }
}

export interface RawHttpResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** A request with exactly the headers given (fetch would not let a test set
 *  Host or send duplicate headers). */
export function rawHttp(options: {
  port: number
  method: string
  path: string
  headers?: Array<[string, string]>
  body?: string | Buffer
}): Promise<RawHttpResponse> {
  return new Promise((resolve, reject) => {
    // With raw (array) headers Node adds no Host of its own: add the right
    // one unless the test sets its own.
    const given = options.headers ?? []
    const hasHost = given.some(([name]) => name.toLowerCase() === 'host')
    const flat = (hasHost ? given : [['Host', `127.0.0.1:${options.port}`], ...given]).flat()
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method,
        path: options.path,
        headers: flat,
        setHost: false,
        timeout: WAIT_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    req.on('timeout', () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    if (options.body !== undefined) req.write(options.body)
    req.end()
  })
}

/** Polls until `check` returns a value, for state reached asynchronously;
 *  the ceiling only bounds a hang (scripts/test-timing.ts). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<T> {
  return waitFor(check, what, timeoutMs)
}
