import { mkdirSync, statSync } from 'node:fs'
import { chmod, chown, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GatewayUsageError, parseGatewayArgs } from '../src/gateway/gateway-cli.ts'
import { configOpenToOthers } from '../src/runtime/mcp/config-open-to-others.ts'
import { GATEWAY_LEAD, unkeptConfig } from '../src/runtime/mcp/gateway-config-kept.ts'
import { loadMcpConfig } from '../src/runtime/mcp/mcp-config-loader.ts'

// Whoever can write an MCP config chooses what the runtime or the gateway
// starts as this user. One table, walked through each door that reads a
// config by path: the gateway's start (`--config`), the runtime's load
// (`ASSENT_MCP_CONFIG`), and the judgment both make again at each reload.

const CONFIG = JSON.stringify({ servers: [] })

interface Row {
  what: string
  /** Lays out `mcp.json` (or the link to it) in `folder`; returns the path given. */
  make: (folder: string) => Promise<string>
  /** What the refusal says, or null where the config is read. */
  refused: RegExp | null
}

async function configIn(folder: string, mode: number, folderMode = 0o700): Promise<string> {
  await chmod(folder, folderMode)
  const file = join(folder, 'mcp.json')
  await writeFile(file, CONFIG)
  await chmod(file, mode)
  return file
}

const rows: Row[] = [
  { what: "the reader's own file", make: (f) => configIn(f, 0o644), refused: null },
  {
    what: "writable by the reader's own group",
    make: (f) => configIn(f, 0o664, 0o775),
    refused: null,
  },
  {
    what: 'writable by any user',
    make: (f) => configIn(f, 0o666),
    refused: /mcp\.json can be written by any user \(mode 666\)$/,
  },
  {
    what: 'in a folder any user can write',
    make: (f) => configIn(f, 0o644, 0o777),
    refused: /its folder .* can be written by any user \(mode 777\)$/,
  },
  {
    what: 'in a sticky folder any user can add to (as /tmp)',
    make: (f) => configIn(f, 0o644, 0o1777),
    refused: null,
  },
  {
    what: 'a link named mcp.json to an mcp.json any user can write',
    make: async (f) => {
      await mkdir(join(f, 'other'))
      const target = await configIn(join(f, 'other'), 0o666)
      await mkdir(join(f, 'link'))
      await symlink(target, join(f, 'link', 'mcp.json'))
      return join(f, 'link', 'mcp.json')
    },
    refused: /other\/mcp\.json can be written by any user \(mode 666\)$/,
  },
]

describe('an MCP config another OS user could write is not read, at every door', () => {
  let folder: string
  beforeEach(async () => {
    folder = await realpath(await mkdtemp(join(tmpdir(), 'assent-config-open-')))
  })
  afterEach(async () => {
    await chmod(folder, 0o700)
    await rm(folder, { recursive: true, force: true })
  })

  const doors: Array<[string, (file: string) => string | null]> = [
    [
      'the gateway, at its start',
      (file) => {
        try {
          parseGatewayArgs(['--config', file, '--workspace', folder], {}, folder)
          return null
        } catch (error) {
          if (!(error instanceof GatewayUsageError)) throw error
          return error.message
        }
      },
    ],
    ['the gateway, at each reload', (file) => unkeptConfig(file)],
    [
      'the runtime',
      (file) => {
        const data = join(folder, 'data')
        mkdirSync(data, { recursive: true })
        return loadMcpConfig(data, file).refused?.message ?? null
      },
    ],
  ]

  for (const [door, judge] of doors) {
    it.each(rows)(`${door}: $what`, async ({ make, refused }) => {
      const given = await make(folder)
      const said = judge(given)
      if (refused === null) expect(said).toBeNull()
      else expect(said).toMatch(refused)
    })
  }

  it('says why and what would be read instead', async () => {
    const file = await configIn(folder, 0o666)
    expect(unkeptConfig(file)).toBe(
      `${GATEWAY_LEAD} a config no other user can change: ${file} can be written by any user (mode 666)`,
    )
  })
})

describe('whose a config and its folder are', () => {
  let folder: string
  beforeEach(async () => {
    folder = await realpath(await mkdtemp(join(tmpdir(), 'assent-config-owner-')))
  })
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true })
  })

  it("refuses another user's file, and a group's that is not the reader's", async () => {
    const file = await configIn(folder, 0o664, 0o700)
    const { uid, gid } = statSync(file)
    // Root's files count as the reader's own: run by root, the file is
    // given to an ordinary user first.
    const owner = uid === 0 ? 4321 : uid
    if (owner !== uid) await chown(file, owner, gid)
    expect(configOpenToOthers(file, { uid: owner + 1, gid })).toMatch(/belongs to user \d+$/)
    if (owner !== uid) await chown(file, uid, gid)
    expect(configOpenToOthers(file, { uid, gid: gid + 1 })).toMatch(
      /can be written by group \d+ \(mode 664\)$/,
    )
    expect(configOpenToOthers(file, { uid, gid })).toBeNull()
  })

  it("takes root's files and folders as the reader's own", () => {
    // /etc/passwd: root's, in root's /etc, written by no one else.
    expect(configOpenToOthers('/etc/passwd', { uid: 4321, gid: 4321 })).toBeNull()
  })

  it('judges a config not there yet by its folder', async () => {
    await chmod(folder, 0o777)
    expect(configOpenToOthers(join(folder, 'mcp.json'))).toMatch(/its folder .* \(mode 777\)$/)
    await chmod(folder, 0o700)
    expect(configOpenToOthers(join(folder, 'mcp.json'))).toBeNull()
  })

  it('has nothing to judge where the platform has no owners', async () => {
    const file = await configIn(folder, 0o666)
    expect(configOpenToOthers(file, null)).toBeNull()
  })
})
