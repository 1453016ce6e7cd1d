import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Grant } from '../../contracts/room.ts'
import {
  createRoom,
  openTempDatabase,
  ROOM_ID,
  sqliteStores,
  type SqliteStores,
} from '../test-support/sqlite-stores.ts'
import { IntegrityMac } from './integrity-mac.ts'

const MAC = new IntegrityMac(Buffer.alloc(32, 9))
const HASH = 'a'.repeat(64)
let db: DatabaseSync
let close: () => void
let stores: SqliteStores

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-grants-'))
  stores = sqliteStores(db, { mac: MAC })
  createRoom(stores)
})
afterEach(() => close())

/** A sealed row as the store writes it, for `toolName` on server `everything`. */
function storedGrant(id: string, toolName: string, scope: Grant['scope']): Grant {
  const grant: Grant = {
    id,
    roomId: ROOM_ID,
    toolName,
    scope,
    command: null,
    mcp: {
      serverId: 'everything',
      definitionHash: HASH,
      ...(scope === 'mcp-server' ? { toolListHash: HASH } : {}),
    },
    approvalId: `approval-${id}`,
    createdAt: 1,
  }
  stores.grants.insert(grant)
  return grant
}

const key = (toolName: string) => ({
  serverId: 'everything',
  toolName,
  definitionHash: HASH,
  serverTools: { hash: HASH },
})

describe('findMcpGrant', () => {
  it('answers for the exact definition a grant was given on', () => {
    const grant = storedGrant('g1', 'resources/read', 'mcp')
    expect(stores.grants.findMcpGrant(ROOM_ID, key('resources/read'))?.id).toBe(grant.id)
  })

  // No grant is made for a server's sampling request (grant-scope.ts); a
  // sealed row that says otherwise, of either scope, answers for nothing.
  it.each(['mcp', 'mcp-server'] as const)(
    'never answers for a sampling request, even from a sealed %s row',
    (scope) => {
      storedGrant('g2', 'sampling/createMessage', scope)
      expect(stores.grants.findMcpGrant(ROOM_ID, key('sampling/createMessage'))).toBeUndefined()
    },
  )
})

describe("a prompt's grant", () => {
  it('keeps the name of the prompt it answers for, sealed: renamed on disk, it answers for nothing', () => {
    const problems: string[] = []
    stores = sqliteStores(db, { mac: MAC, onTampered: (problem) => problems.push(problem.problem) })
    const grant: Grant = {
      id: 'g4',
      roomId: ROOM_ID,
      toolName: 'prompts/get',
      scope: 'mcp',
      command: null,
      mcp: { serverId: 'everything', definitionHash: HASH, prompt: 'args-prompt' },
      approvalId: 'approval-g4',
      createdAt: 1,
    }
    stores.grants.insert(grant)
    expect(stores.grants.listActive(ROOM_ID)).toEqual([grant])
    db.prepare("UPDATE grants SET mcp_prompt = 'simple-prompt' WHERE id = ?").run('g4')
    expect(stores.grants.listActive(ROOM_ID)).toEqual([])
    expect(problems).toEqual(['mac_mismatch'])
  })
})

describe('a grant read again', () => {
  it('answers for nothing, reported at every read, once its row is changed after it verified', () => {
    const problems: string[] = []
    stores = sqliteStores(db, { mac: MAC, onTampered: (problem) => problems.push(problem.problem) })
    storedGrant('g3', 'resources/read', 'mcp')
    expect(stores.grants.findMcpGrant(ROOM_ID, key('resources/read'))?.id).toBe('g3')
    expect(stores.grants.listActive(ROOM_ID).map((grant) => grant.id)).toEqual(['g3'])
    // Widened on disk to every tool of the server.
    db.prepare("UPDATE grants SET scope = 'mcp-server', mcp_tool_list_hash = ? WHERE id = ?").run(
      HASH,
      'g3',
    )
    expect(stores.grants.findMcpGrant(ROOM_ID, key('prompts/get'))).toBeUndefined()
    expect(stores.grants.listActive(ROOM_ID)).toEqual([])
    expect(problems).toEqual(['mac_mismatch', 'mac_mismatch'])
  })
})
