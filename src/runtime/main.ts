import {
  RuntimeInitSchema,
  RuntimeShutdownSchema,
  type RuntimeReady,
} from '../contracts/runtime-init.ts'
import { IpcRollbackAnchor } from './rollback/ipc-rollback-anchor.ts'
import { startRuntime, type RuntimeHandle } from './runtime-app.ts'

/**
 * Entry of the runtime process. It waits for exactly one `init` message on
 * its IPC channel (a `child_process.fork` channel in tests and the CDP host,
 * Electron's `process.parentPort` under `utilityProcess.fork`), starts, and
 * answers `{ type: 'ready', port, instanceId }`.
 */
interface ElectronParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void
  postMessage(message: unknown): void
}

interface ParentChannel {
  onMessage(listener: (message: unknown) => void): void
  send(message: unknown): void
}

function parentChannel(): ParentChannel {
  const parentPort = (process as { parentPort?: ElectronParentPort }).parentPort
  if (parentPort) {
    return {
      onMessage: (listener) =>
        parentPort.on('message', (event: { data: unknown }) => listener(event.data)),
      send: (message) => parentPort.postMessage(message),
    }
  }
  if (process.send) {
    return {
      onMessage: (listener) => process.on('message', listener),
      // Main can go away between a check and the write. Without a callback
      // Node would raise that as an uncaught 'error' and kill the runtime
      // before `disconnect` below closes it cleanly; the message had no
      // reader left, so the write error is dropped.
      send: (message) => process.send?.(message, undefined, undefined, () => undefined),
    }
  }
  // Without an IPC channel there is no safe way to receive secrets: refuse.
  console.error('assent runtime: start me with an IPC channel (fork), never from a shell')
  process.exit(2)
}

const channel = parentChannel()
let runtime: RuntimeHandle | undefined
let starting = false
// Main's answers to anchor requests come over the same channel.
const rollbackAnchor = new IpcRollbackAnchor({
  send: (message) => {
    if (process.connected === false) throw new Error('disconnected')
    channel.send(message)
  },
})

channel.onMessage((message) => {
  if (rollbackAnchor.receive(message)) return
  if (RuntimeShutdownSchema.safeParse(message).success) {
    void (runtime?.close() ?? Promise.resolve()).finally(() => process.exit(0))
    return
  }
  if (starting) return
  const init = RuntimeInitSchema.safeParse(message)
  if (!init.success) {
    channel.send({
      type: 'failed',
      error: `invalid init message: ${init.error.issues[0]?.message}`,
    })
    process.exit(2)
  }
  starting = true
  const {
    bearerToken,
    consentKey,
    integrityKey,
    dataDir,
    rollbackAnchor: storedAnchor,
    approvalTtlMs,
    scopedRoots,
    questionPhaseMs,
    mcpConfigPath,
  } = init.data
  startRuntime({
    bearerToken,
    consentKey: Buffer.from(consentKey, 'base64url'),
    integrityKey: Buffer.from(integrityKey, 'base64url'),
    dataDir,
    rollback: { stored: storedAnchor, anchor: rollbackAnchor },
    ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
    ...(questionPhaseMs === undefined ? {} : { questionPhaseMs }),
    ...(scopedRoots === undefined ? {} : { scopedRoots }),
    ...(mcpConfigPath === undefined ? {} : { mcpConfigPath }),
  }).then(
    (handle) => {
      runtime = handle
      const ready: RuntimeReady = {
        type: 'ready',
        port: handle.port,
        instanceId: handle.instanceId,
      }
      channel.send(ready)
    },
    (error: unknown) => {
      channel.send({ type: 'failed', error: (error as Error).message })
      process.exit(1)
    },
  )
})

// A terminal's Ctrl+C reaches the whole process group, main included, and
// main then stops this runtime cleanly: its shutdown advances the rollback
// anchor, which dying here first would skip. Without main, `disconnect`
// below closes it.
process.on('SIGINT', () => undefined)

process.on('disconnect', () => {
  // The parent is gone: nobody can mint consent for this instance any more,
  // nor store the anchor (the next start catches it up from the database).
  rollbackAnchor.closeAll('the channel to main closed')
  void (runtime?.close() ?? Promise.resolve()).finally(() => process.exit(0))
})
