import { existsSync, readFileSync } from 'node:fs'

/** A message that makes the agent run a shell which leaves `pidFile` (its
 *  word that it started) and then sleeps for 30 s: long enough to still be
 *  running when a test kills the runtime under it. System programs only: a
 *  sandboxed command has its own /tmp, so a Node kept under the host's /tmp
 *  (a checkout there) is not there for it. Inside the sandbox's own PID
 *  namespace its pid would mean nothing here, so none is written: the
 *  sandbox ends it with the runtime. */
export function sleeperCommand(pidFile: string): string {
  return `run sh -c 'echo started > ${pidFile}; exec sleep 30'`
}

/** Ends a sleeper that recorded a pid (one run outside a sandbox, in its
 *  own process group, outlives the runtime); a file without one is left. */
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
