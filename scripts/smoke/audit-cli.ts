import { spawn } from 'node:child_process'
import { join } from 'node:path'
import type { SmokeReport } from './report-schema.ts'

/**
 * Runs the real `assent audit verify` on the scenario's data folder, as the
 * person who owns a data folder would: a separate Node process, the same key
 * store selection (the environment says which), exit code 0 only when every
 * link, MAC and the sealed head verify. Run after the runtime stopped, so
 * the database is no longer being written.
 */
export async function runAuditVerifyCli(
  projectRoot: string,
  dataDir: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<NonNullable<SmokeReport['auditCli']>> {
  const args = [
    join(projectRoot, 'src', 'cli', 'assent.ts'),
    'audit',
    'verify',
    '--data-dir',
    dataDir,
  ]
  const command = `node src/cli/assent.ts audit verify --data-dir ${dataDir}`
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: projectRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    let settled = false
    const done = (exitCode: number | null, extra = '') => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      const text = `${output}${extra}`.trim()
      resolve({ command, exitCode, output: text, ok: exitCode === 0 })
    }
    child.on('error', (error) => done(null, `could not start: ${error.message}`))
    // 'close', not 'exit': by then everything it printed has been read.
    child.on('close', (code) => done(code))
  })
}
