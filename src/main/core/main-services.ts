import { z } from 'zod'
import {
  LanguageSchema,
  ThemeSchema,
  type Language,
  type Theme,
} from '../../common/consent-view.ts'
import type { WorkbenchChannel, WorkbenchPreferences } from '../../common/assent-gui.ts'
import { encodeWorkbenchError, workbenchError } from '../../common/workbench-error.ts'
import { WaitNotices } from './wait-notices.ts'
import { ConsentController } from './consent-controller.ts'
import { rejectApprovalForMessage } from './message-rejection.ts'
import type { WaitNotifier, ProtectedWindowFactory, WorkbenchNotifier } from './host-port.ts'
import { RendererRelay, filterEventForRenderer } from './renderer-relay.ts'
import type { RollbackAnchorKeeper } from './rollback-anchor-keeper.ts'
import { RuntimeClient } from './runtime-client.ts'
import { RuntimeEventStream } from './runtime-events.ts'
import type { RuntimeLauncher } from './runtime-launcher.ts'
import { RuntimeSupervisor, type RuntimeConnection } from './runtime-supervisor.ts'
import { WorkbenchRefusal, workbenchErrorOf } from './workbench-refusal.ts'

/** `assentGui.setPreferences({ lang, theme })`: exactly those two fields. */
export const WorkbenchPreferencesArgsSchema = z.tuple([
  z.strictObject({ lang: LanguageSchema, theme: ThemeSchema }),
])

export interface MainServicesOptions {
  launcher: RuntimeLauncher
  dataDir: string
  /** The data folder's integrity key, from the SecretStore (secret-store-selection.ts). */
  integrityKey: Buffer
  /** The data folder's rollback anchor, from the same SecretStore. */
  rollbackAnchor: RollbackAnchorKeeper
  /** The key is in a plain file in the data folder: every `runtime.status` up
   *  tells the workbench, which shows a warning (DataDirSecrets). */
  keyInDataDirFile?: boolean
  windows: ProtectedWindowFactory
  notifier: WorkbenchNotifier
  /** The system's language and theme, used until the workbench reports its own. */
  preferences: () => { lang: Language; theme: Theme }
  /** Shows a system notification for what waits for the person (what and
   *  when: wait-notices.ts); the host decides whether the workbench has
   *  focus. */
  approvalNotifier?: WaitNotifier
  approvalTtlMs?: number
  scopedRoots?: string[]
  /** mcp.json, when not the one in the data folder. */
  mcpConfigPath?: string
  enableDelayMs?: number
  /** Whether a review asked for now may take focus (ConsentController). */
  mayTakeFocus?: () => boolean
  /** How long a start waits for the runtime's ready message before it
   *  kills it and tries again (RUNTIME_READY_TIMEOUT_MS unless given). */
  runtimeReadyTimeoutMs?: number
  onDiagnostic?: (message: string) => void
}

/**
 * Main's host-agnostic core, wired: the runtime supervisor, the typed
 * client, the renderer relay, the consent controller and the event
 * forwarder. The Electron host and the CDP host each supply only windows,
 * a launcher and a way to notify the workbench.
 */
export class MainServices {
  readonly supervisor: RuntimeSupervisor
  readonly client: RuntimeClient
  readonly relay: RendererRelay
  readonly controller: ConsentController
  private readonly events: RuntimeEventStream
  private readonly options: MainServicesOptions
  private workbenchPreferences: WorkbenchPreferences | undefined
  private readonly notices: WaitNotices | undefined

  constructor(options: MainServicesOptions) {
    this.options = options
    this.supervisor = new RuntimeSupervisor({
      launcher: options.launcher,
      dataDir: options.dataDir,
      integrityKey: options.integrityKey,
      rollbackAnchor: options.rollbackAnchor,
      ...(options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {}),
      ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
      ...(options.scopedRoots === undefined ? {} : { scopedRoots: options.scopedRoots }),
      ...(options.mcpConfigPath === undefined ? {} : { mcpConfigPath: options.mcpConfigPath }),
      ...(options.runtimeReadyTimeoutMs === undefined
        ? {}
        : { readyTimeoutMs: options.runtimeReadyTimeoutMs }),
      onUp: (connection) => this.runtimeUp(connection),
      onDown: (reason) => this.runtimeDown(reason),
    })
    const connection = () => this.supervisor.current
    this.client = new RuntimeClient(connection)
    this.relay = new RendererRelay({ client: this.client })
    this.controller = new ConsentController({
      client: this.client,
      connection,
      windows: options.windows,
      preferences: () => this.preferences,
      ...(options.enableDelayMs === undefined ? {} : { enableDelayMs: options.enableDelayMs }),
      ...(options.mayTakeFocus ? { mayTakeFocus: options.mayTakeFocus } : {}),
      ...(options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {}),
    })
    this.events = new RuntimeEventStream(connection, (event) => {
      if (event.type === 'reset') {
        options.notifier.send({ type: 'runtime.reset', data: {} })
        return
      }
      // Main's own windows follow the runtime's event itself, whatever the
      // renderer's allowlist passes on to the workbench.
      this.closeSettledReview(event)
      const allowed = filterEventForRenderer({ type: event.type, data: event.data })
      if (!allowed) return
      options.notifier.send(allowed)
      this.notices?.onEvent(allowed)
    })
    this.notices = options.approvalNotifier
      ? new WaitNotices({
          notifier: options.approvalNotifier,
          language: () => this.preferences.lang,
        })
      : undefined
  }

  /** An approval that is no longer pending must not stay open in a
   *  protected window, asking a question nobody waits for: one the runtime
   *  expired before its time (withdrawn) ends as expired; one decided
   *  without this window (the reviewer, the approver webhook, a rejection
   *  by message) closes saying so. A window whose decision is being applied
   *  is left to finish (the controller skips it). */
  private closeSettledReview(event: { type: string; data: unknown }): void {
    if (event.type !== 'approval.resolved') return
    const approval = (event.data as { approval?: { id?: unknown; status?: unknown } } | null)
      ?.approval
    if (typeof approval?.id !== 'string') return
    if (approval.status === 'expired') {
      this.controller.approvalExpired(approval.id)
    } else if (approval.status === 'allowed' || approval.status === 'denied') {
      this.controller.closeApprovalReview(
        approval.id,
        workbenchError(
          'approval_decided',
          `approval ${approval.id} was decided without this window`,
        ),
      )
    }
  }

  /** The language and theme the protected window opens in: the workbench's
   *  own once it has reported them, the system's before that. */
  get preferences(): { lang: Language; theme: Theme } {
    return this.workbenchPreferences ?? this.options.preferences()
  }

  async start(): Promise<RuntimeConnection> {
    const connection = await this.supervisor.start()
    this.events.start()
    return connection
  }

  /** A deliberate runtime restart: open windows close (their tokens would
   *  be for the old instance) and the workbench is told, as after a crash. */
  async restartRuntime(
    update: { approvalTtlMs?: number; questionPhaseMs?: number } = {},
  ): Promise<RuntimeConnection> {
    this.controller.closeAll(workbenchError('runtime_restarted', 'the runtime restarted'))
    return this.supervisor.restartWith(update)
  }

  async stop(): Promise<void> {
    this.events.stop()
    this.notices?.clear()
    this.controller.closeAll(workbenchError('app_closing', 'the app is closing'))
    await this.supervisor.stop()
  }

  /**
   * Every workbench call lands here after the host validated its sender.
   * This is the edge where failures leave main: whatever went wrong, the
   * call is rejected with a typed error (common/workbench-error.ts) that the
   * page words in the person's language, never with text it would have to
   * match.
   */
  async handleWorkbenchCall(channel: WorkbenchChannel, args: unknown): Promise<unknown> {
    try {
      return await this.dispatch(channel, args)
    } catch (error) {
      throw new Error(encodeWorkbenchError(workbenchErrorOf(error)), { cause: error })
    }
  }

  private async dispatch(channel: WorkbenchChannel, args: unknown): Promise<unknown> {
    const list = Array.isArray(args) ? args : [args]
    switch (channel) {
      case 'relay':
        if (list.length !== 1) {
          throw new WorkbenchRefusal('relay_refused', 'a relay call takes one request')
        }
        return this.relay.call(list[0])
      case 'review':
        return this.controller.reviewApproval(list)
      case 'reject':
        return rejectApprovalForMessage(
          {
            client: this.client,
            connection: () => this.supervisor.current,
            closeReview: (approvalId) =>
              this.controller.closeApprovalReview(
                approvalId,
                workbenchError('rejected_by_message', 'rejected by a new message'),
              ),
          },
          list,
        )
      case 'form':
        return this.controller.openSensitiveForm(list)
      case 'mode':
        return this.controller.requestModeChange(list)
      case 'webhook':
        return this.controller.requestApproverWebhook(list)
      case 'preferences': {
        const parsed = WorkbenchPreferencesArgsSchema.safeParse(list)
        if (!parsed.success) {
          throw new WorkbenchRefusal(
            'invalid_arguments',
            'setPreferences takes one { lang, theme } and nothing else',
          )
        }
        const [{ lang, theme }] = parsed.data
        this.workbenchPreferences = { lang, theme }
        return null
      }
      default:
        throw new WorkbenchRefusal('unknown_channel', 'unknown workbench channel')
    }
  }

  private runtimeUp(connection: RuntimeConnection): void {
    this.options.notifier.send({
      type: 'runtime.status',
      data: {
        state: 'up',
        instanceId: connection.instanceId,
        ...(this.options.keyInDataDirFile === true ? { keyFile: true } : {}),
      },
    })
  }

  private runtimeDown(reason: string): void {
    // Open windows belong to the dead instance: close them, mint nothing.
    this.controller.closeAll(workbenchError('runtime_down', reason))
    this.notices?.clear()
    this.options.notifier.send({ type: 'runtime.status', data: { state: 'down', reason } })
  }
}
