import { readdirSync, readFileSync } from 'node:fs'

/** TCP ports in LISTEN state on this machine (Linux /proc; elsewhere empty). */
export function listeningPorts(): Set<number> {
  const ports = new Set<number>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      // st 0A = LISTEN
      if (fields[3] !== '0A') continue
      const port = Number.parseInt(fields[1]?.split(':')[1] ?? '', 16)
      if (Number.isInteger(port)) ports.add(port)
    }
  }
  return ports
}

/** Whether a process is still alive (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * After cleanup, every process the run started must have exited and every
 * port it listened on must be closed. Only what the run itself owned is
 * checked: other programs on the machine may listen as they like.
 */
export async function leftovers(
  owned: { pids: readonly number[]; ports: readonly number[] },
  waitMs = 5_000,
): Promise<string[]> {
  const deadline = Date.now() + waitMs
  for (;;) {
    const listening = listeningPorts()
    const left = [
      ...owned.pids.filter(isAlive).map((pid) => `process ${pid}`),
      ...owned.ports.filter((port) => listening.has(port)).map((port) => `port ${port}`),
    ]
    if (left.length === 0 || Date.now() > deadline) return left
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Parent pid of every process, from /proc (Linux; elsewhere empty). */
export function parentTable(): Map<number, number> {
  const table = new Map<number, number>()
  let entries: string[]
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return table
  }
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // Field 4 is the parent pid; the command name (field 2) may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      table.set(Number(entry), ppid)
    } catch {
      // The process exited while we looked.
    }
  }
  return table
}

/** Every descendant of `root` in a parent table: children, their children
 *  and so on (a browser's renderers are children of its main process). */
export function descendantsIn(table: ReadonlyMap<number, number>, root: number): number[] {
  const children = new Map<number, number[]>()
  for (const [pid, ppid] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid])
  const found: number[] = []
  const queue = [root]
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (child === root || found.includes(child)) continue
      found.push(child)
      queue.push(child)
    }
  }
  return found
}

/** The whole process tree under `root`, as it is now. */
export function processTree(root: number): number[] {
  return descendantsIn(parentTable(), root)
}
