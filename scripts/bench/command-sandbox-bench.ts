// What starting a command in the OS sandbox costs: `true` run through the
// runtime's own run_command, in the sandbox (workspace-write) and outside
// it (full access), alternating so both meet the same machine.

import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { SandboxMode } from '../../src/contracts/policy-axes.ts'
import { CommandSandbox } from '../../src/runtime/sandbox/command-sandbox.ts'
import { runCommandTool } from '../../src/runtime/tools/run-command.ts'
import { percentile } from './stats.ts'

export interface CommandSandboxBenchOptions {
  rounds: number
  /** Sandboxed and bare runs per round, one of each in turn. */
  pairsPerRound: number
  log: (line: string) => void
}

export interface CommandSandboxBenchResult {
  /** Per round: the median sandboxed start minus the median bare one. */
  overheadMs: number[]
  sandboxedP50Ms: number[]
  bareP50Ms: number[]
  pairsPerRound: number
}

export async function measureCommandSandbox(
  options: CommandSandboxBenchOptions,
): Promise<CommandSandboxBenchResult> {
  const workspace = await realpath(await mkdtemp(join(tmpdir(), 'assent-bench-sandbox-')))
  const sandbox = new CommandSandbox({ assentPrivate: [] })
  const run = async (sandboxMode: SandboxMode): Promise<number> => {
    const started = performance.now()
    const result = await runCommandTool.run(
      { argv: ['true'] },
      {
        workspace,
        resolvedPaths: [workspace],
        timeoutMs: 30_000,
        command: { sandbox, sandboxMode, extraWritableRoots: [] },
      },
    )
    const elapsed = performance.now() - started
    if (!result.ok) throw new Error(`true failed (${sandboxMode}): ${result.output}`)
    return elapsed
  }
  try {
    // The probe and the first starts of each are not what a command costs.
    await run('workspace-write')
    await run('danger-full-access')
    const result: CommandSandboxBenchResult = {
      overheadMs: [],
      sandboxedP50Ms: [],
      bareP50Ms: [],
      pairsPerRound: options.pairsPerRound,
    }
    for (let round = 0; round < options.rounds; round += 1) {
      const sandboxed: number[] = []
      const bare: number[] = []
      for (let pair = 0; pair < options.pairsPerRound; pair += 1) {
        // Which goes first alternates too, so neither always follows the other.
        if (pair % 2 === 0) {
          sandboxed.push(await run('workspace-write'))
          bare.push(await run('danger-full-access'))
        } else {
          bare.push(await run('danger-full-access'))
          sandboxed.push(await run('workspace-write'))
        }
      }
      const sandboxedP50 = percentile(sandboxed, 50)
      const bareP50 = percentile(bare, 50)
      result.sandboxedP50Ms.push(sandboxedP50)
      result.bareP50Ms.push(bareP50)
      result.overheadMs.push(sandboxedP50 - bareP50)
      options.log(
        `commands: round ${round + 1}: sandboxed p50 ${sandboxedP50.toFixed(1)} ms, bare ${bareP50.toFixed(1)} ms`,
      )
    }
    return result
  } finally {
    await rm(workspace, { recursive: true, force: true })
  }
}
