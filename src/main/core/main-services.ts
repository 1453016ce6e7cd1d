import type { Language, Theme } from '../../common/consent-view.ts'
import type { WorkbenchChannel } from '../../common/assent-gui.ts'
import { ConsentController } from './consent-controller.ts'
import type { ProtectedWindowFactory, WorkbenchNotifier } from './host-port.ts'
import { RendererGateway, filterEventForRenderer } from './renderer-gateway.ts'
import { RuntimeClient } from './runtime-client.ts'
import { RuntimeEventStream } from './runtime-events.ts'
import type { RuntimeLauncher } from './runtime-launcher.ts'
import { RuntimeSupervisor, type RuntimeConnection } from './runtime-supervisor.ts'

export interface MainServicesOptions {
  launcher: RuntimeLauncher
  dataDir: string
  windows: ProtectedWindowFactory
  notifier: WorkbenchNotifier
  preferences: () => { lang: Language; theme: Theme }
  approvalTtlMs?: number
  scopedRoots?: string[]
  enableDelayMs?: number
  onDiagnostic?: (message: string) => void
}

/**
 * Main's host-agnostic core, wired: the runtime supervisor, the typed
 * client, the renderer gateway, the consent controller and the event
 * forwarder. The Electron host and the CDP host each supply only windows,
 * a launcher and a way to notify the workbench.
 */
export class MainServices {
  readonly supervisor: RuntimeSupervisor
  readonly client: RuntimeClient
  readonly gateway: RendererGateway
  readonly controller: ConsentController
  private readonly events: RuntimeEventStream
  private readonly options: MainServicesOptions

  constructor(options: MainServicesOptions) {
    this.options = options
    this.supervisor = new RuntimeSupervisor({
      launcher: options.launcher,
      dataDir: options.dataDir,
      ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
      ...(options.scopedRoots === undefined ? {} : { scopedRoots: options.scopedRoots }),
      onUp: (connection) => this.runtimeUp(connection),
      onDown: (reason) => this.runtimeDown(reason),
    })
    const connection = () => this.supervisor.current
    this.client = new RuntimeClient(connection)
    this.gateway = new RendererGateway({ client: this.client })
    this.controller = new ConsentController({
      client: this.client,
      connection,
      windows: options.windows,
      preferences: options.preferences,
      ...(options.enableDelayMs === undefined ? {} : { enableDelayMs: options.enableDelayMs }),
      ...(options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {}),
    })
    this.events = new RuntimeEventStream(connection, (event) => {
      if (event.type === 'reset') {
        options.notifier.send({ type: 'runtime.reset', data: {} })
        return
      }
      const allowed = filterEventForRenderer({ type: event.type, data: event.data })
      if (allowed) options.notifier.send(allowed)
    })
  }

  async start(): Promise<RuntimeConnection> {
    const connection = await this.supervisor.start()
    this.events.start()
    return connection
  }

  async stop(): Promise<void> {
    this.events.stop()
    this.controller.closeAll('the app is closing')
    await this.supervisor.stop()
  }

  /** Every workbench call lands here after the host validated its sender. */
  async handleWorkbenchCall(channel: WorkbenchChannel, args: unknown): Promise<unknown> {
    const list = Array.isArray(args) ? args : [args]
    switch (channel) {
      case 'gateway':
        if (list.length !== 1) throw new Error('refused: a gateway call takes one request')
        return this.gateway.call(list[0])
      case 'review':
        return this.controller.reviewApproval(list)
      case 'mode':
        return this.controller.requestModeChange(list)
      default:
        throw new Error('refused: unknown workbench channel')
    }
  }

  private runtimeUp(connection: RuntimeConnection): void {
    this.options.notifier.send({
      type: 'runtime.status',
      data: { state: 'up', instanceId: connection.instanceId },
    })
  }

  private runtimeDown(reason: string): void {
    // Open windows belong to the dead instance: close them, mint nothing.
    this.controller.closeAll(reason)
    this.options.notifier.send({ type: 'runtime.status', data: { state: 'down', reason } })
  }
}
