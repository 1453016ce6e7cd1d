import { readFileSync } from 'node:fs'

/** Whether `pid` still runs, as Linux's /proc tells it: a zombie waiting to
 *  be reaped has ended. */
export function processRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z'
  } catch {
    return false
  }
}
