import { existsSync, readFileSync } from 'node:fs'

/** A message that makes the agent run a Node process which records its pid
 *  in `pidFile` and then idles for 30 s: long enough to still be running
 *  when a test kills the runtime under it. */
export function sleeperCommand(pidFile: string): string {
  const script = `require('node:fs').writeFileSync('${pidFile}', String(process.pid)); setTimeout(() => {}, 30000)`
  return `run ${process.execPath} -e "${script}"`
}

/** Ends the sleeper by the pid it recorded. A command runs in its own
 *  process group, so killing the runtime leaves it behind. */
export function killOrphan(pidFile: string): void {
  if (!existsSync(pidFile)) return
  const pid = Number(readFileSync(pidFile, 'utf8'))
  if (!Number.isSafeInteger(pid) || pid <= 0) return
  try {
    process.kill(pid, 'SIGKILL')
  } catch (error) {
    // Already gone: nothing left to end.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}
