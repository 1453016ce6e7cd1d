import { mkdir, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  type CreateMessageRequest,
} from '@modelcontextprotocol/sdk/types.js'

import { gatewayConfigIn } from './mcp-gateway-harness.ts'

const require = createRequire(import.meta.url)

/** The pinned servers' stdio entries, as installed in node_modules. */
export const EVERYTHING_SERVER =
  require.resolve('@modelcontextprotocol/server-everything/dist/index.js')
export const FILESYSTEM_SERVER =
  require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js')
export const ODD_NAMES_SERVER = fileURLToPath(
  new URL('../fixtures/mcp-odd-names-server.ts', import.meta.url),
)

const stdio = (args: string[], env: Record<string, string> = {}) => ({
  type: 'stdio',
  command: process.execPath,
  args,
  env,
})

/** The tools of server-everything the tests call. */
const EVERYTHING_TOOLS = [
  'echo',
  'get-tiny-image',
  'get-annotated-message',
  'get-resource-links',
  'get-roots-list',
  'trigger-long-running-operation',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-sampling-request',
  'trigger-elicitation-request',
]

export interface RealServersFixture {
  configPath: string
  /** The odd-names server's folder (its `.ssh` key, its cancel markers). */
  oddDir: string
}

/**
 * An mcp.json with real servers behind the gateway: server-everything
 * twice, `everything` (gated: the person is asked) and `library` (a
 * read-only manifest: runs unasked); server-filesystem read-only on the
 * workspace as `files`; and the odd-names fixture, read-only, as `odd`.
 */
export async function writeRealServersConfig(
  root: string,
  workspace: string,
): Promise<RealServersFixture> {
  const oddDir = join(root, 'odd')
  await mkdir(oddDir, { recursive: true })
  const configPath = await gatewayConfigIn(root, 'real')
  await writeFile(
    configPath,
    JSON.stringify({
      servers: [
        {
          id: 'everything',
          name: 'Everything',
          transport: stdio([EVERYTHING_SERVER, 'stdio']),
          allowed_tools: EVERYTHING_TOOLS,
        },
        {
          id: 'library',
          name: 'Everything (read-only)',
          transport: stdio([EVERYTHING_SERVER, 'stdio']),
          allowed_tools: EVERYTHING_TOOLS,
          manifest: { readonly: true },
        },
        {
          id: 'files',
          name: 'Files',
          transport: stdio([FILESYSTEM_SERVER, workspace]),
          allowed_tools: ['read_text_file', 'list_allowed_directories'],
          manifest: { readonly: true },
        },
        {
          id: 'odd',
          name: 'Odd names',
          transport: stdio([ODD_NAMES_SERVER], { ODD_DIR: oddDir }),
          allowed_tools: ['wait_for_cancel', 'grow', 'sample_until_cancelled', 'ping_client'],
          manifest: { readonly: true },
        },
      ],
    }),
  )
  return { configPath, oddDir }
}

/** What the agent's model was asked through sampling, in order. */
export type SamplingLog = CreateMessageRequest['params'][]

/** The answer the agent's (scripted) model gives every sampling request. */
export const MODEL_ANSWER = 'scripted model answer'

/**
 * An agent's client as MCP hosts build it with the SDK: it declares
 * sampling (its model answers `MODEL_ANSWER`, each request logged) and
 * roots (the workspace).
 */
export function samplingClient(workspace: string): { client: Client; sampled: SamplingLog } {
  const sampled: SamplingLog = []
  const client = new Client(
    { name: 'test-host', version: '1.0.0' },
    { capabilities: { sampling: {}, roots: { listChanged: true } } },
  )
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    sampled.push(request.params)
    return {
      role: 'assistant',
      model: 'scripted',
      content: { type: 'text', text: MODEL_ANSWER },
    }
  })
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: pathToFileURL(workspace).href, name: 'workspace' }],
  }))
  return { client, sampled }
}
