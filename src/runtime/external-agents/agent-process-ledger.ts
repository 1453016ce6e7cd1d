import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { writePrivately } from '../config/private-file.ts'
import type { AgentProcess } from './agent-process.ts'

/** The file in the data folder that names the agent processes running now. */
export const AGENT_PROCESSES_FILE_NAME = 'agent-processes.json'

const LedgerSchema = z.strictObject({
  processes: z
    .array(
      z.strictObject({
        pid: z.number().int().positive(),
        /** When the process started, as the system tells it: with the pid,
         *  it names one process, never a later one that got the same pid. */
        startedAt: z.string().min(1),
        agentId: z.string(),
      }),
    )
    .max(4096),
})
type LedgerEntry = z.infer<typeof LedgerSchema>['processes'][number]

/** What the ledger asks of the system about processes. */
export interface ProcessTable {
  /** When `pid` started, or null if there is no such process. */
  startedAt(pid: number): string | null
  /** The processes whose process group is `pgid`. */
  groupMembers(pgid: number): number[]
  /** Sends `signal` to every process of group `pgid`. */
  killGroup(pgid: number, signal: NodeJS.Signals): void
}

/**
 * The agent processes the runtime started, written to the data folder while
 * they run. An agent outlives a runtime that crashes (it runs in its own
 * process group, and codex-acp does not exit when its stdin closes), so
 * the next runtime ends what the last one left, before it starts anything:
 * its turns were interrupted by the crash, and an agent left running could
 * still act on an answer nobody gave.
 *
 * Only processes this ledger can still identify are ended: the process with
 * the recorded pid and start time, with its group; or, when that process is
 * gone, the processes still in its group (a group id is not given to a new
 * process while its group has members). A pid that now names another
 * process is left alone.
 */
export class AgentProcessLedger {
  private readonly path: string
  private readonly table: ProcessTable
  private entries: LedgerEntry[] = []

  constructor(dataDir: string, table: ProcessTable = systemProcessTable()) {
    this.path = join(dataDir, AGENT_PROCESSES_FILE_NAME)
    this.table = table
  }

  /** Ends what an earlier runtime left running, and starts a new ledger.
   *  Returns the process groups it ended. */
  reapLeftovers(): number[] {
    const ended: number[] = []
    for (const entry of this.read()) {
      const startedAt = this.table.startedAt(entry.pid)
      const ours =
        startedAt === null
          ? this.table.groupMembers(entry.pid).length > 0
          : startedAt === entry.startedAt
      if (!ours) continue
      try {
        this.table.killGroup(entry.pid, 'SIGKILL')
        ended.push(entry.pid)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
      }
    }
    this.entries = []
    this.write()
    return ended
  }

  /** Notes a process just spawned, and forgets it once it has exited. */
  track(agent: AgentProcess, agentId: string): void {
    const pid = agent.pid
    if (pid === undefined) return
    const startedAt = this.table.startedAt(pid)
    // Gone already: it has nothing left to end.
    if (startedAt === null) return
    this.entries.push({ pid, startedAt, agentId })
    this.write()
    void agent.exited.then(() => {
      this.entries = this.entries.filter((entry) => entry.pid !== pid)
      this.write()
    })
  }

  private read(): LedgerEntry[] {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    try {
      return LedgerSchema.parse(JSON.parse(text)).processes
    } catch {
      // A damaged ledger identifies nothing, and nothing is ended on a
      // guess: a wrong pid would end someone else's process.
      return []
    }
  }

  private write(): void {
    writePrivately(this.path, `${JSON.stringify({ processes: this.entries })}\n`)
  }
}

/** Linux's /proc where there is one, `ps` elsewhere. */
export function systemProcessTable(procRoot = '/proc'): ProcessTable {
  const proc = hasProc(procRoot)
  return {
    startedAt: (pid) => (proc ? procStartedAt(procRoot, pid) : psStartedAt(pid)),
    groupMembers: (pgid) => (proc ? procGroupMembers(procRoot, pgid) : psGroupMembers(pgid)),
    killGroup: (pgid, signal) => process.kill(-pgid, signal),
  }
}

function hasProc(procRoot: string): boolean {
  try {
    readFileSync(join(procRoot, 'self', 'stat'))
    return true
  } catch {
    return false
  }
}

/** The fields of /proc/<pid>/stat after the command name, which is in
 *  parentheses and may itself hold spaces and parentheses. */
function statFields(procRoot: string, pid: number): string[] | null {
  try {
    const stat = readFileSync(join(procRoot, String(pid), 'stat'), 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return null
  }
}

function procStartedAt(procRoot: string, pid: number): string | null {
  // Field 22, `starttime`: clock ticks after boot; boot time makes it
  // unique across reboots.
  const fields = statFields(procRoot, pid)
  const ticks = fields?.[19]
  if (ticks === undefined) return null
  return `${bootId(procRoot)}:${ticks}`
}

function bootId(procRoot: string): string {
  try {
    return readFileSync(join(procRoot, 'sys', 'kernel', 'random', 'boot_id'), 'utf8').trim()
  } catch {
    return 'boot'
  }
}

function procGroupMembers(procRoot: string, pgid: number): number[] {
  const members: number[] = []
  for (const name of readdirSync(procRoot)) {
    if (!/^\d+$/.test(name)) continue
    // Field 5, `pgrp`.
    if (statFields(procRoot, Number(name))?.[2] === String(pgid)) members.push(Number(name))
  }
  return members
}

/** The system's `ps`, by its full path (macOS and Linux both have it
 *  there), never looked up on PATH: a folder on PATH may be one a command
 *  can write (a project's `node_modules/.bin`, a writable root), and a
 *  `ps` left there would run with the person's rights, outside any
 *  sandbox, whenever the runtime starts. Where it is missing, the call
 *  fails, nothing is identified and nothing ended on a guess. */
const PS_PROGRAM = '/bin/ps'

function psStartedAt(pid: number): string | null {
  const out = spawnSync(PS_PROGRAM, ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' })
  const text = out.status === 0 ? out.stdout.trim() : ''
  return text === '' ? null : text
}

function psGroupMembers(pgid: number): number[] {
  const out = spawnSync(PS_PROGRAM, ['-A', '-o', 'pid=,pgid='], { encoding: 'utf8' })
  if (out.status !== 0) return []
  return out.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, group]) => group === pgid)
    .map(([pid]) => pid ?? 0)
}
