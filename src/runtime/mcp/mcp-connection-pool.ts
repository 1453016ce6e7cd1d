import { canonicalJson } from '../../contracts/canonical-json.ts'
import type { McpConfig, McpServerConfig } from '../../contracts/mcp-config.ts'
import type { McpConnection } from './mcp-connection.ts'

/** One connection lent to a call: `release` once the call is over, so a
 *  connection that a new mcp.json replaced closes only when idle. */
export interface McpConnectionLease {
  readonly connection: McpConnection
  release(): void
}

/** What one `apply` changed, by server id. */
export interface McpConfigChange {
  added: string[]
  changed: string[]
  removed: string[]
}

interface Entry {
  config: McpServerConfig
  /** The server's configuration as canonical JSON: two entries are the same
   *  server only if every field is. */
  key: string
  connection: McpConnection
  leases: number
  retired: boolean
}

/**
 * The connections to the servers of one mcp.json, which can be replaced
 * while calls run. A call leases the connection it started with and keeps
 * it to the end (its consent, its preview and the call itself all talk to
 * the server the person was shown); a new configuration applies to calls
 * that start after it. A server removed or changed by the new file is
 * retired: no new call gets it, and it closes once its last call is over.
 */
export class McpConnectionPool {
  private readonly open: (server: McpServerConfig) => McpConnection
  private readonly entries = new Map<string, Entry>()
  private closed = false

  constructor(config: McpConfig, open: (server: McpServerConfig) => McpConnection) {
    this.open = open
    for (const server of config.servers) this.entries.set(server.id, this.entry(server))
  }

  get serverIds(): string[] {
    return [...this.entries.keys()]
  }

  /** The connection for `serverId` now, or undefined for a server the
   *  configuration in force does not name. */
  lease(serverId: string): McpConnectionLease | undefined {
    const entry = this.entries.get(serverId)
    if (!entry || this.closed) return undefined
    entry.leases += 1
    let released = false
    return {
      connection: entry.connection,
      release: () => {
        if (released) return
        released = true
        entry.leases -= 1
        if (entry.retired && entry.leases === 0) void this.shut(entry)
      },
    }
  }

  /** Whether `server` is the configuration in force for its id now: false
   *  once mcp.json was reloaded without it or with it changed, while a
   *  call still holds the connection made for it. */
  isInForce(server: McpServerConfig): boolean {
    const entry = this.entries.get(server.id)
    return entry !== undefined && entry.key === serverKey(server)
  }

  /** Every connection in force, for reading (a listing); not leased. */
  connections(): McpConnection[] {
    return [...this.entries.values()].map((entry) => entry.connection)
  }

  /** Replaces the configuration for calls that start from now on. A server
   *  whose configuration is unchanged keeps its connection. */
  apply(config: McpConfig): McpConfigChange {
    const change: McpConfigChange = { added: [], changed: [], removed: [] }
    if (this.closed) return change
    const next = new Map(config.servers.map((server) => [server.id, server]))
    for (const [id, entry] of [...this.entries]) {
      const server = next.get(id)
      if (server && serverKey(server) === entry.key) continue
      this.retire(entry)
      this.entries.delete(id)
      if (server) {
        this.entries.set(id, this.entry(server))
        change.changed.push(id)
      } else {
        change.removed.push(id)
      }
    }
    for (const [id, server] of next) {
      if (this.entries.has(id)) continue
      this.entries.set(id, this.entry(server))
      change.added.push(id)
    }
    return change
  }

  async close(): Promise<void> {
    this.closed = true
    const all = [...this.entries.values()]
    this.entries.clear()
    await Promise.allSettled(all.map((entry) => entry.connection.close()))
  }

  private entry(server: McpServerConfig): Entry {
    return {
      config: server,
      key: serverKey(server),
      connection: this.open(server),
      leases: 0,
      retired: false,
    }
  }

  private retire(entry: Entry): void {
    entry.retired = true
    if (entry.leases === 0) void this.shut(entry)
  }

  private async shut(entry: Entry): Promise<void> {
    await entry.connection.close().catch(() => undefined)
  }
}

/** The server's configuration as canonical JSON, through the wire form
 *  first so an absent optional field and an undefined one compare equal. */
function serverKey(server: McpServerConfig): string {
  return canonicalJson(JSON.parse(JSON.stringify(server)) as unknown)
}
