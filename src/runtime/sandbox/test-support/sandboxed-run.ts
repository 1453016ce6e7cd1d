import type { SandboxMode } from '../../../contracts/policy-axes.ts'
import { runCommandTool } from '../../tools/run-command.ts'
import type { ToolContext } from '../../tools/tool-types.ts'
import type { CommandSandbox } from '../command-sandbox.ts'

/**
 * How the sandbox tests run a command through `run_command`: `ctx` for a
 * mode, `sh` for a shell line. `place` is read at each call, since the
 * workspace and the sandbox are made in a `beforeAll`.
 */
export function sandboxedRun(place: () => { workspace: string; sandbox: CommandSandbox }) {
  const ctx = (sandboxMode: SandboxMode, extra: Partial<ToolContext> = {}): ToolContext => {
    const { workspace, sandbox } = place()
    return {
      workspace,
      resolvedPaths: [workspace],
      timeoutMs: 60_000,
      command: { sandbox, sandboxMode, extraWritableRoots: [] },
      ...extra,
    }
  }
  const sh = (line: string, mode: SandboxMode, extra: Partial<ToolContext> = {}) =>
    runCommandTool.run({ argv: ['sh', '-c', line] }, ctx(mode, extra))
  return { ctx, sh }
}
