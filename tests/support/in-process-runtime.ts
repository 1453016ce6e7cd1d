import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RuntimeClient } from '../../src/main/core/runtime-client.ts'
import type { RuntimeConnection } from '../../src/main/core/runtime-supervisor.ts'
import { mintConsentToken } from '../../src/consent/consent-token.ts'
import { startRuntime, type RuntimeOptions } from '../../src/runtime/runtime-app.ts'
import type { RuntimeHarness } from './runtime-harness.ts'
import { fileRollbackAnchor } from './test-secrets.ts'

/** The parts of `RuntimeOptions` a test injects: a model, a reviewer, its
 *  timeout, the approver webhook's timeout, the command sandbox, and the
 *  mcp.json and agents.json it reads. */
export type InjectedParts = Pick<
  RuntimeOptions,
  | 'model'
  | 'reviewer'
  | 'reviewerTimeoutMs'
  | 'approverWebhookTimeoutMs'
  | 'commandSandbox'
  | 'mcpConfigPath'
  | 'agentsConfigPath'
>

/**
 * A real runtime on a loopback port, started in this process so a test can
 * hand it objects (a model, a reviewer) that no child process could receive.
 * Everything else is as in production: the HTTP server, the SQLite file, the
 * consent tokens. It has no supervisor: `supervisor` and `restart` throw.
 */
export async function startInProcessRuntime(parts: InjectedParts): Promise<RuntimeHarness> {
  const root = await mkdtemp(join(tmpdir(), 'assent-inproc-'))
  const dataDir = join(root, 'data')
  const workspace = join(root, 'workspace')
  await mkdir(workspace, { recursive: true })
  const integrityKey = randomBytes(32)
  const bearerToken = randomBytes(32).toString('base64url')
  const consentKey = randomBytes(32)
  await mkdir(dataDir, { recursive: true })
  // No IPC channel in one process: main's keeper is handed in directly.
  const rollbackAnchor = fileRollbackAnchor(dataDir)
  const handle = await startRuntime({
    rollback: {
      stored: (await rollbackAnchor.read()) ?? null,
      anchor: { advance: async (counter) => void (await rollbackAnchor.advance(counter)) },
    },
    bearerToken,
    consentKey,
    integrityKey,
    dataDir,
    scopedRoots: [workspace],
    onFatal: (error) => {
      throw error
    },
    ...parts,
  })
  const connection = (): RuntimeConnection => ({
    port: handle.port,
    instanceId: handle.instanceId,
    bearerToken,
    consentKey,
  })
  const noSupervisor = () => {
    throw new Error('an in-process runtime has no supervisor')
  }
  return {
    root,
    dataDir,
    workspace,
    integrityKey,
    rollbackAnchor,
    get supervisor(): never {
      return noSupervisor()
    },
    connection,
    client: new RuntimeClient(connection),
    mintApproval: (approvalId, decision, actionDigest) =>
      mintConsentToken({
        key: consentKey,
        now: Date.now(),
        binding: {
          kind: 'approval',
          subject: { approvalId, decision, actionDigest, instanceId: handle.instanceId },
        },
      }),
    mintPermission: (fields) =>
      mintConsentToken({
        key: consentKey,
        now: Date.now(),
        binding: {
          kind: 'room-permission',
          subject: { ...fields, instanceId: handle.instanceId },
        },
      }),
    restart: async () => noSupervisor(),
    async close() {
      await handle.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}
