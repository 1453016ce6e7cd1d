import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CreateRoomRequestSchema, RoomKindSchema, RoomSchema } from '../src/contracts/room.ts'
import { builtInAgents } from '../src/runtime/domain/agent-preset.ts'
import { TEST_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { RUN_RUNTIME } from './support/integrity-helpers.ts'
import { eventually } from './support/runtime-harness.ts'

// docs/runtime-api.md, "Creating a room": its table against the schema the
// route parses with, and its example run as a person pastes it, in bash,
// against `npm run runtime` and the `export` line it prints.

const doc = readFileSync(new URL('../docs/runtime-api.md', import.meta.url), 'utf8')
const section = /### Creating a room\n([\s\S]*?)\n#{2,3} /.exec(doc)?.[1] ?? ''

/** The first cell of each row of the section's table: the field names. */
function tableFields(): string[] {
  return [...section.matchAll(/^\| `([a-zA-Z]+)` +\|/gm)].map((match) => match[1] ?? '')
}

function exampleScript(): string {
  return /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? ''
}

describe('docs/runtime-api.md: creating a room', () => {
  it('lists every field a create call accepts, and nothing else', () => {
    expect(tableFields().sort()).toEqual(Object.keys(CreateRoomRequestSchema.shape).sort())
  })

  it('names every room kind and every agent a room can have', () => {
    const kindRow = /^\| `kind` +\|(.*)$/m.exec(section)?.[1] ?? ''
    for (const kind of RoomKindSchema.options) expect(kindRow).toContain(`\`${kind}\``)
    const agentRow = /^\| `agentId` +\|(.*)$/m.exec(section)?.[1] ?? ''
    for (const agent of builtInAgents({ scopedRoots: [] })) {
      expect(agentRow).toContain(`\`${agent.id}\``)
    }
  })

  describe('its example, pasted into bash after the export line', () => {
    let root: string
    let runtime: ReturnType<typeof spawn> | undefined
    let stdout = ''

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'assent-api-docs-'))
      runtime = spawn(process.execPath, [RUN_RUNTIME], {
        env: {
          ...process.env,
          HOME: root,
          ASSENT_DATA_DIR: join(root, 'data'),
          ASSENT_SECRET_STORE: 'file',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      runtime.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
      await eventually(
        () => (/^ {2}export ASSENT_URL=/m.test(stdout) ? true : undefined),
        'npm run runtime to print its export line',
      )
    }, TEST_TIMEOUT_MS)

    afterAll(async () => {
      if (runtime && runtime.exitCode === null) {
        const exited = new Promise((resolve) => runtime?.once('close', resolve))
        runtime.kill('SIGTERM')
        await exited
      }
      rmSync(root, { recursive: true, force: true })
    })

    it('creates a direct room working in the current folder', () => {
      const exportLine = /^ {2}(export ASSENT_URL=.*)$/m.exec(stdout)?.[1] ?? ''
      const folder = join(root, 'my project')
      mkdirSync(folder)
      const result = spawnSync('bash', ['-c', `${exportLine}\n${exampleScript()}`], {
        cwd: folder,
        env: { ...process.env, PWD: folder },
        encoding: 'utf8',
      })
      expect(result.stderr).toBe('')
      expect(result.status).toBe(0)
      const room = RoomSchema.parse((JSON.parse(result.stdout) as { room: unknown }).room)
      expect(room).toMatchObject({
        kind: 'direct',
        agentId: 'assistant',
        workspace: realpathSync(folder),
        title: 'Notes',
        mode: 'ask-for-approval',
        revision: 0,
      })
    })
  })
})
