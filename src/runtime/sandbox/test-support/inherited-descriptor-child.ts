// `node inherited-descriptor-child.ts <workspace> <home>`, started by
// runWithDescriptorsLeftOpen (child-processes/test-support/left-open.ts):
// a runtime that a shell left descriptor 30 open to, appending to a file
// outside the workspace, and 31, reading another. Runs one command that
// uses both through `run_command` in each mode and prints their outputs
// as JSON, `{ contained, full }`.

import { CommandSandbox } from '../command-sandbox.ts'
import { runCommandTool } from '../../tools/run-command.ts'
import type { SandboxMode } from '../../../contracts/policy-axes.ts'
import { USE_30_AND_31 } from '../../child-processes/test-support/left-open.ts'

const [workspace, home] = process.argv.slice(2)
if (workspace === undefined || home === undefined) throw new Error('workspace and home, please')
const sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
const run = async (sandboxMode: SandboxMode) =>
  (
    await runCommandTool.run(
      { argv: ['bash', '-c', USE_30_AND_31] },
      {
        workspace,
        resolvedPaths: [workspace],
        timeoutMs: 60_000,
        command: { sandbox, sandboxMode, extraWritableRoots: [] },
      },
    )
  ).output
process.stdout.write(
  JSON.stringify({
    contained: await run('workspace-write'),
    full: await run('danger-full-access'),
  }),
)
