/**
 * The `assent` command line (src/cli/assent.ts is its entry): tools for the
 * person who owns a data folder. Flags are parsed strictly: anything unknown,
 * repeated or missing a value is refused with a message naming it.
 */
import { stat } from 'node:fs/promises'
import { integrityAccount } from '../main/core/secret-store.ts'
import { readKeyForVerifying } from '../main/core/secret-store-selection.ts'
import { checkRollback } from '../runtime/domain/rollback-check.ts'
import { readRollbackEvidence, verifyAuditFile } from '../runtime/store/audit-file.ts'
import { IntegrityMac } from '../runtime/store/integrity-mac.ts'

export const USAGE = `usage: assent audit verify [--data-dir D]

Checks the audit log of an Assent data folder: every hash link, every MAC under
the integrity key, and the sealed head (so deleting the newest events shows);
then the database's rollback counter against the rollback anchor kept
outside it (so an older copy of the database put back shows), and whether
the log records such a rollback. The key and the anchor come from the OS
keychain, or from the data folder's files (integrity.key, rollback.anchor) only
when ASSENT_SECRET_STORE=file names that store: a key file found in the data
folder is never used on its own, since whoever can write the data folder can put
one there. The answer says which key verified. The data folder is
--data-dir D, else ASSENT_DATA_DIR.

exit status: 0 intact, 1 broken, tampered or rolled back (the message says
where), 2 could not check (bad usage, no database, no key)`

export const EXIT_INTACT = 0
export const EXIT_TAMPERED = 1
export const EXIT_UNCHECKED = 2

export type AssentCommand = { command: 'help' } | { command: 'audit-verify'; dataDir?: string }

export class UsageError extends Error {}

export function parseAssentArgs(argv: readonly string[]): AssentCommand {
  const [first, second, ...rest] = argv
  if (first === undefined) throw new UsageError('name a command: assent audit verify')
  if (first === '--help' || first === '-h' || first === 'help') return { command: 'help' }
  if (first !== 'audit') throw new UsageError(`unknown command "${first}"`)
  if (second === undefined) throw new UsageError('name an audit command: assent audit verify')
  if (second !== 'verify') {
    throw new UsageError(`unknown audit command "${second}": the only one is "verify"`)
  }
  let dataDir: string | undefined
  for (let index = 0; index < rest.length; index += 1) {
    const arg = rest[index] ?? ''
    if (arg === '--help' || arg === '-h') return { command: 'help' }
    let value: string | undefined
    if (arg === '--data-dir') {
      value = rest[index + 1]
      index += 1
      if (value === undefined || value.startsWith('--')) {
        throw new UsageError('--data-dir needs a directory: --data-dir D')
      }
    } else if (arg.startsWith('--data-dir=')) {
      value = arg.slice('--data-dir='.length)
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown option "${arg}" for assent audit verify`)
    } else {
      throw new UsageError(`unexpected argument "${arg}": name the data folder with --data-dir D`)
    }
    if (value === '') throw new UsageError('--data-dir needs a directory: --data-dir D')
    if (dataDir !== undefined) throw new UsageError('--data-dir given twice')
    dataDir = value
  }
  return dataDir === undefined ? { command: 'audit-verify' } : { command: 'audit-verify', dataDir }
}

export interface CliIo {
  env: NodeJS.ProcessEnv
  out: (line: string) => void
  err: (line: string) => void
}

/** Runs one command and returns its exit status. */
export async function runAssentCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: AssentCommand
  try {
    command = parseAssentArgs(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    io.err(`assent: ${error.message}`)
    io.err(USAGE)
    return EXIT_UNCHECKED
  }
  if (command.command === 'help') {
    io.out(USAGE)
    return EXIT_INTACT
  }
  try {
    return await auditVerify(command.dataDir ?? io.env.ASSENT_DATA_DIR, io)
  } catch (error) {
    io.err(`assent audit verify: could not check: ${(error as Error).message}`)
    return EXIT_UNCHECKED
  }
}

async function auditVerify(dataDir: string | undefined, io: CliIo): Promise<number> {
  if (dataDir === undefined || dataDir === '') {
    io.err('assent audit verify: name the data folder with --data-dir D (or set ASSENT_DATA_DIR)')
    return EXIT_UNCHECKED
  }
  const info = await stat(dataDir).catch(() => undefined)
  if (!info?.isDirectory()) {
    io.err(`assent audit verify: ${dataDir} is not a directory`)
    return EXIT_UNCHECKED
  }
  const account = await integrityAccount(dataDir)
  // Read only: verifying must never create a key (a new key would make every
  // MAC on disk look forged).
  const reading = await readKeyForVerifying(account, {
    env: io.env,
    warn: (message) => io.err(`warning: ${message}`),
  })
  if (!reading.ok) {
    io.err(`assent audit verify: ${reading.problem}`)
    return EXIT_UNCHECKED
  }
  const { key, store, source } = reading
  const mac = new IntegrityMac(key)
  const verdict = verifyAuditFile(account, mac)
  if (!verdict.ok) {
    io.err(
      `audit log broken at seq ${verdict.seq}: ${verdict.problem} ` +
        `(${verdict.checked} event${verdict.checked === 1 ? '' : 's'} before it verified; ${account}); checked with ${source}`,
    )
    return EXIT_TAMPERED
  }
  const rollback = rollbackProblem(
    readRollbackEvidence(account, mac),
    (await store.readAnchor(account)) ?? null,
    store.description,
  )
  if (rollback.problem !== undefined) {
    io.err(`${rollback.problem} (${account}); checked with ${source}`)
    return EXIT_TAMPERED
  }
  io.out(
    verdict.checked === 0
      ? `audit log intact: no events yet, ${rollback.summary} (${account}); verified with ${source}`
      : `audit log intact: ${verdict.checked} events, seq 1–${verdict.lastSeq}, sealed head at seq ${verdict.lastSeq}, ${rollback.summary} (${account}); verified with ${source}`,
  )
  return EXIT_INTACT
}

/**
 * A database older than its anchor, or a log that records such a rollback,
 * is a failed check: in both, what happened between the copy and the
 * anchor is not in this log. A rollback the app already found stays in the
 * log for good, so this check keeps failing for that data folder: the log is
 * not the whole record, and saying "intact" would claim it is.
 */
function rollbackProblem(
  evidence: ReturnType<typeof readRollbackEvidence>,
  anchor: number | null,
  where: string,
): { problem: string; summary?: undefined } | { problem?: undefined; summary: string } {
  const verdict = checkRollback(evidence.counter, anchor, evidence.rowsMatch)
  if (verdict.kind === 'rolled-back') {
    const counted = verdict.databaseCounter ?? 0
    const problem = {
      older_than_anchor: `its rollback counter is ${counted}, the anchor in ${where} is ${verdict.anchor}`,
      anchor_missing: `it has counted ${counted} changes, but ${where} holds no rollback anchor for it`,
      counter_tampered:
        'the sealed head that holds its rollback counter does not verify, or does not name its newest event',
      rows_changed:
        'its rooms and grants are not those its sealed head vouches for (rows or tables put back from an older copy)',
    }[verdict.reason]
    return { problem: `database rolled back: ${problem}; it is an older copy put back in place` }
  }
  const recorded = evidence.detections.at(-1)
  if (recorded) {
    const { reason, databaseCounter, anchor: found } = recorded.payload
    return {
      problem:
        `audit log records a rollback at seq ${recorded.seq}: Assent found the database older than its anchor ` +
        `(${String(reason)}: counter ${String(databaseCounter)}, anchor ${String(found)}); ` +
        'what happened between that copy and the anchor is not in this log',
    }
  }
  return {
    summary:
      verdict.kind === 'initialise'
        ? 'no rollback anchor yet'
        : `not rolled back (counter ${verdict.counter}, anchor ${verdict.anchor})`,
  }
}
