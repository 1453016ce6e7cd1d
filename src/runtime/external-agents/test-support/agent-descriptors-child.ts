// `node agent-descriptors-child.ts <workspace>`, started by a shell that
// left descriptor 30 open for appending to a file and 31 open for reading
// one: a runtime started that way. Starts an "agent" (bash) that writes
// through 30 and reads through 31, and prints what it said.

import { USE_30_AND_31 } from '../../child-processes/test-support/left-open.ts'
import { startAgentProcess } from '../agent-process.ts'

const [workspace] = process.argv.slice(2)
if (workspace === undefined) throw new Error('a workspace, please')
const agent = startAgentProcess(
  {
    command: 'bash',
    args: ['-c', USE_30_AND_31],
    pass_env: [],
    set_env: {},
  },
  workspace,
)
let said = ''
agent.stdout.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')))
await agent.exited
process.stdout.write(said)
