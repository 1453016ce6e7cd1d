// `node left-open-server-child.ts <folder>`, started by
// runWithDescriptorsLeftOpen (child-processes/test-support/left-open.ts):
// a runtime that a shell left descriptor 30 open to, appending to a file
// outside any workspace, and 31, reading another. Starts one stdio MCP
// server whose process, as the command a shell tool runs would, uses both,
// and prints what it read from 31.

import { readFileSync } from 'node:fs'
import path from 'node:path'
import { McpConfigSchema } from '../../../contracts/mcp-config.ts'
import { USE_30_AND_31 } from '../../child-processes/test-support/left-open.ts'
import { McpConnection } from '../mcp-connection.ts'

const [folder] = process.argv.slice(2)
if (folder === undefined) throw new Error('a folder, please')
const saw = path.join(folder, 'server-saw.txt')
const [server] = McpConfigSchema.parse({
  servers: [
    {
      id: 'shell',
      allowed_tools: ['execute'],
      // Not a server at all: the process uses the descriptors and ends,
      // so the connection fails once it has.
      transport: { type: 'stdio', command: 'bash', args: ['-c', `(${USE_30_AND_31}) > "$0"`, saw] },
    },
  ],
}).servers
if (server === undefined) throw new Error('no server')
const connection = new McpConnection(server, { requestTimeoutMs: 10_000, stderr: 'ignore' })
await connection.connect().catch(() => undefined)
process.stdout.write(readFileSync(saw, 'utf8'))
