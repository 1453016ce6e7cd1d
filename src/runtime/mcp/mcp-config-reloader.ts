import type { ConfigFileError } from '../config/strict-config-file.ts'
import { ConfigFileWatcher } from '../config/config-file-watcher.ts'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import type { McpConfig } from '../../contracts/mcp-config.ts'
import type { McpConfigChange } from './mcp-connection-pool.ts'
import type { LoadedMcpConfig } from './mcp-config-loader.ts'

/** Quiet time after the last write to mcp.json before it is read again. */
export const MCP_CONFIG_DEBOUNCE_MS = 250

/** Where a reload is reported: the runtime's audit log, the gateway's
 *  stderr. */
export interface McpConfigReports {
  /** The file was refused; `serversInForce` stay as they were. */
  refused(error: ConfigFileError, serversInForce: string[]): void
  /** A new configuration is in force for calls that start from now on. */
  applied(servers: string[], change: McpConfigChange): void
}

export interface McpConfigReloaderOptions {
  /** The file to watch. */
  file: string
  /** Reads it strictly; a refused file comes back with `refused` set. */
  load: () => LoadedMcpConfig
  /** The configuration in force when watching starts. */
  initial: McpConfig
  apply: (config: McpConfig) => McpConfigChange
  reports: McpConfigReports
  onError: (error: unknown) => void
  debounceMs?: number
}

export type McpReloadOutcome = 'applied' | 'unchanged' | 'refused'

/**
 * Picks up mcp.json edits without a restart. Each change is read with the
 * same strict parsing as at start; a file that is refused changes nothing
 * (the configuration in force stays, and the refusal names the field), so
 * a half-saved or mistyped edit can never widen what agents may call nor
 * leave the runtime with no configuration. A file that parses replaces the
 * configuration for calls that start from then on: a call already waiting
 * on the person keeps the server it was shown.
 */
export class McpConfigReloader {
  private readonly options: McpConfigReloaderOptions
  private readonly watcher: ConfigFileWatcher
  private current: McpConfig

  constructor(options: McpConfigReloaderOptions) {
    this.options = options
    this.current = options.initial
    this.watcher = new ConfigFileWatcher({
      file: options.file,
      debounceMs: options.debounceMs ?? MCP_CONFIG_DEBOUNCE_MS,
      onChange: () => void this.reload(),
      onError: options.onError,
    })
  }

  get inForce(): McpConfig {
    return this.current
  }

  start(): boolean {
    return this.watcher.start()
  }

  close(): void {
    this.watcher.close()
  }

  /** Reads the file now and applies it if it parses and differs. */
  reload(): McpReloadOutcome {
    const loaded = this.options.load()
    if (loaded.refused) {
      this.options.reports.refused(loaded.refused, serverIds(this.current))
      return 'refused'
    }
    if (sameConfig(loaded.config, this.current)) return 'unchanged'
    const change = this.options.apply(loaded.config)
    this.current = loaded.config
    this.options.reports.applied(serverIds(loaded.config), change)
    return 'applied'
  }
}

function serverIds(config: McpConfig): string[] {
  return config.servers.map((server) => server.id)
}

function sameConfig(a: McpConfig, b: McpConfig): boolean {
  const text = (config: McpConfig) => canonicalJson(JSON.parse(JSON.stringify(config)) as unknown)
  return text(a) === text(b)
}
