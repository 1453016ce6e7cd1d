import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FileSecretStore } from '../../src/main/core/file-secret-store.ts'
import { RollbackAnchorKeeper } from '../../src/main/core/rollback-anchor-keeper.ts'
import { RuntimeClient } from '../../src/main/core/runtime-client.ts'
import { ChildProcessLauncher } from '../../src/main/core/runtime-launcher.ts'
import { RuntimeSupervisor } from '../../src/main/core/runtime-supervisor.ts'
import type { RuntimeAccess } from './runtime-fixtures.ts'

const RUNTIME_ENTRY = fileURLToPath(new URL('../../src/runtime/main.ts', import.meta.url))

export interface BenchRuntime extends RuntimeAccess {
  root: string
  /** The runtime's data folder (its SQLite file), under `root`. */
  dataDir: string
  workspace: string
  pid: () => number | undefined
  close(): Promise<void>
}

/** One runtime child process started the way main starts it, with a
 *  throwaway data folder and workspace under `root` (a fresh temp folder unless
 *  given, and then removed on close) and a random integrity key. */
export async function startBenchRuntime(options: {
  approvalTtlMs: number
  root?: string
  /** Node flags for the runtime child, e.g. `--cpu-prof` (profile-decisions.ts). */
  nodeFlags?: readonly string[]
  /** How long its start may take (the supervisor's default unless given). */
  readyTimeoutMs?: number
}): Promise<BenchRuntime> {
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'assent-bench-')))
  const workspace = join(root, 'workspace')
  const dataDir = join(root, 'data')
  await mkdir(workspace, { recursive: true })
  const supervisor = new RuntimeSupervisor({
    launcher: new ChildProcessLauncher(RUNTIME_ENTRY, process.env, options.nodeFlags ?? []),
    dataDir,
    integrityKey: randomBytes(32),
    rollbackAnchor: new RollbackAnchorKeeper(new FileSecretStore(), dataDir),
    restart: false,
    approvalTtlMs: options.approvalTtlMs,
    ...(options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs }),
  })
  await supervisor.start()
  return {
    root,
    dataDir,
    workspace,
    client: new RuntimeClient(() => supervisor.current),
    connection: () => {
      const current = supervisor.current
      if (!current) throw new Error('the bench runtime is not running')
      return current
    },
    pid: () => supervisor.pid,
    async close() {
      await supervisor.stop()
      if (!options.root) await rm(root, { recursive: true, force: true })
    },
  }
}
