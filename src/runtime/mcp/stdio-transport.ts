import { spawn, type ChildProcess } from 'node:child_process'
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { onlyTheseDescriptors } from '../child-processes/inherited-descriptors.ts'

/** How a stdio server is started (mcp.json's `command`, `args`, `env`,
 *  `cwd`). */
export interface StdioServerStart {
  command: string
  args: readonly string[]
  env?: Readonly<Record<string, string>>
  cwd?: string
  stderr: 'inherit' | 'ignore'
}

/** How long `close` waits for the server after each step (its input
 *  closed, SIGTERM) before the next, as the SDK's own transport does. */
const CLOSE_STEP_MS = 2_000

/**
 * The client side of a stdio MCP server, as the SDK's `StdioClientTransport`
 * (the same environment, the same framing, the same way to close), but
 * started with its three descriptors only.
 *
 * The SDK's transport spawns the server with whatever descriptors the
 * runtime holds without close-on-exec, which are those whatever started
 * the runtime left open (a shell's `exec 30>>~/.bashrc`, a supervisor's
 * pipe or socket): the server, and every command its shell tool runs,
 * would write and read through them (`echo … >&30`) what no word of the
 * call names, so a grant, the reviewer or the webhook answered a call
 * that reached a file the person never saw. Each of them is /dev/null in
 * the server instead (inherited-descriptors.ts), as in a contained
 * command and an external agent. Fails closed: where which descriptors
 * are open cannot be read, the server does not start.
 */
export class DescriptorSafeStdioTransport implements Transport {
  private readonly start_: StdioServerStart
  private readonly buffer = new ReadBuffer()
  private child: ChildProcess | undefined
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  constructor(start: StdioServerStart) {
    this.start_ = start
  }

  start(): Promise<void> {
    if (this.child !== undefined) throw new Error('the stdio transport has started already')
    // Its stderr the runtime's own (descriptor 2), or none.
    const stderr = this.start_.stderr === 'inherit' ? 2 : 'ignore'
    const given = onlyTheseDescriptors(['pipe', 'pipe', stderr])
    return new Promise((resolve, reject) => {
      let child: ChildProcess
      try {
        child = spawn(this.start_.command, [...this.start_.args], {
          env: { ...getDefaultEnvironment(), ...this.start_.env },
          stdio: given.stdio,
          shell: false,
          windowsHide: process.platform === 'win32',
          ...(this.start_.cwd === undefined ? {} : { cwd: this.start_.cwd }),
        })
      } finally {
        // The child holds its own copies now (or never started).
        given.close()
      }
      this.child = child
      child.on('error', (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on('spawn', () => resolve())
      child.on('close', () => {
        this.child = undefined
        this.onclose?.()
      })
      child.stdin?.on('error', (error) => this.onerror?.(error))
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk)
          this.readMessages()
        } catch (error) {
          this.onerror?.(error as Error)
          void this.close().catch(() => undefined)
        }
      })
      child.stdout?.on('error', (error) => this.onerror?.(error))
    })
  }

  private readMessages(): void {
    for (;;) {
      try {
        const message = this.buffer.readMessage()
        if (message === null) return
        this.onmessage?.(message)
      } catch (error) {
        this.onerror?.(error as Error)
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      const stdin = this.child?.stdin
      if (stdin == null) throw new Error('Not connected')
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once('drain', resolve)
    })
  }

  /** Its input closed, then SIGTERM, then SIGKILL, each after a wait. */
  async close(): Promise<void> {
    const child = this.child
    this.child = undefined
    if (child !== undefined) {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
      const step = () =>
        Promise.race([closed, new Promise((resolve) => setTimeout(resolve, CLOSE_STEP_MS).unref())])
      try {
        child.stdin?.end()
      } catch {
        // Already gone.
      }
      await step()
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        await step()
      }
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
    this.buffer.clear()
  }
}
