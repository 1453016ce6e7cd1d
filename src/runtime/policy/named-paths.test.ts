import { linkSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AGENT_COMMAND_TOOL } from '../../contracts/agent-request.ts'
import { keepAsAssentOwn } from './assent-own-paths.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from './person-only.ts'
import { tempWorkspace } from './test-support/temp-workspace.ts'

// What an action names as the rule reads it (named-paths.ts): the person's
// home however an argument spells it, and a file's other names.

const { place, write } = tempWorkspace('assent-named-paths-', ['.git/hooks'])

describe("personOnlyReason: the person's home as an argument spells it", () => {
  let savedHome: string | undefined
  beforeEach(() => {
    savedHome = process.env.HOME
    process.env.HOME = join(place.root, 'home')
    mkdirSync(join(place.root, 'home', 'data'), { recursive: true })
    keepAsAssentOwn([join(place.root, 'home', 'data')])
  })
  afterEach(() => {
    if (savedHome === undefined) delete process.env.HOME
    else process.env.HOME = savedHome
  })

  // A server that expands `~` (server-filesystem does) opens the file in
  // the home folder: Assent's data folder under it is Assent's own.
  it.each([
    '~/data/gateway-connection.json',
    '$HOME/data/gateway-connection.json',
    '${HOME}/data/gateway-connection.json',
    `~${userInfo().username}/data/gateway-connection.json`,
    'see ~/data/gateway-connection.json',
  ])('reads %s as the file in the home folder, at every door', (spelled) => {
    const mcp = mcpTouch(
      { serverId: 'files', toolName: 'read_text_file', arguments: { path: spelled } },
      place.workspace,
    )
    expect(personOnlyReason(mcp)?.class).toBe('assent-own')
    const line = spelled.startsWith('see ') ? spelled.replace('see', 'cat') : `cat ${spelled}`
    const agent = {
      toolName: AGENT_COMMAND_TOOL,
      arguments: { commandLine: line },
      workspace: place.workspace,
    }
    expect(personOnlyReason(agent)?.class).toBe('assent-own')
  })

  it('leaves a folder named ~ in the workspace, and a variable, as written', () => {
    for (const spelled of ['docs/~/data/x', '$HOMEWORK/data/x', '~~struck~~']) {
      const mcp = mcpTouch(
        { serverId: 'files', toolName: 'read_text_file', arguments: { path: spelled } },
        place.workspace,
      )
      expect(personOnlyReason(mcp)).toBeNull()
    }
  })

  it('needs a person for a folder only the shell or the server knows: an unlisted home, ~-', () => {
    // Read as written, each is a folder of that name in the workspace.
    for (const spelled of ['~nobody-else/data/x', '~-/x', '$OLDPWD/x', '${OLDPWD}', '~2/x']) {
      const mcp = mcpTouch(
        { serverId: 'files', toolName: 'read_text_file', arguments: { path: spelled } },
        place.workspace,
      )
      expect(personOnlyReason(mcp), spelled).toMatchObject({
        path: spelled,
        class: 'built-at-run-time',
      })
    }
  })
})

describe('personOnlyReason: a file with other names', () => {
  // Writing a hard link writes every other name of the file: a hook's
  // other name needs the person at every door, whatever it is called.
  it('needs a person for a hard link to a hook, named by a write, a command, an MCP tool or an agent', () => {
    writeFileSync(join(place.workspace, '.git/hooks/pre-push'), 'hook')
    mkdirSync(join(place.workspace, 'docs'))
    linkSync(join(place.workspace, '.git/hooks/pre-push'), join(place.workspace, 'docs/notes.txt'))
    const touches: ActionTouch[] = [
      write('docs/notes.txt'),
      {
        toolName: AGENT_COMMAND_TOOL,
        arguments: { commandLine: 'cp x docs/notes.txt' },
        workspace: place.workspace,
      },
      mcpTouch(
        { serverId: 'files', toolName: 'write_file', arguments: { path: 'docs/notes.txt' } },
        place.workspace,
      ),
    ]
    for (const touch of touches) {
      expect(personOnlyReason(touch)).toMatchObject({
        class: 'hard-linked',
        path: join(place.workspace, 'docs/notes.txt'),
      })
    }
    // Left, it leaves every agent's command to the person
    // (person-only-linked-elsewhere.test.ts), which the rows below do not
    // look at.
    unlinkSync(join(place.workspace, 'docs/notes.txt'))
  })

  // Reading another name of a key reads the key: the sandbox hides the
  // credential folders by name, and a read-only MCP server runs its reads
  // unasked, so a key's other name needs the person at every door too.
  it.each(['.ssh/id_ed25519', '.aws/credentials', '.codex/auth.json', '.kube/config'])(
    "needs a person for another name of the home folder's %s, read or written",
    (secret) => {
      const savedHome = process.env.HOME
      process.env.HOME = join(place.root, 'home')
      try {
        const key = join(place.root, 'home', secret)
        mkdirSync(join(key, '..'), { recursive: true })
        writeFileSync(key, 'secret')
        const name = `docs/${secret.replaceAll('/', '-')}.txt`
        mkdirSync(join(place.workspace, 'docs'), { recursive: true })
        linkSync(key, join(place.workspace, name))
        const touches: ActionTouch[] = [
          mcpTouch(
            { serverId: 'files', toolName: 'read_text_file', arguments: { path: name } },
            place.workspace,
          ),
          {
            toolName: AGENT_COMMAND_TOOL,
            arguments: { commandLine: `cat ${name}` },
            workspace: place.workspace,
          },
          write(name),
        ]
        for (const touch of touches) {
          expect(personOnlyReason(touch)).toMatchObject({
            class: 'hard-linked',
            path: join(place.workspace, name),
          })
        }
      } finally {
        if (savedHome === undefined) delete process.env.HOME
        else process.env.HOME = savedHome
      }
    },
  )

  // Other names of files no rule covers (pnpm's package files, linked
  // into its store; cargo's binaries) are the doors' to answer for; one
  // of a hook is not, wherever it is.
  it('leaves a hard link of a file no rule covers to the doors, and asks for one of a hook anywhere', () => {
    mkdirSync(join(place.workspace, 'node_modules/pkg'), { recursive: true })
    writeFileSync(join(place.root, 'store-file.js'), 'x')
    linkSync(join(place.root, 'store-file.js'), join(place.workspace, 'node_modules/pkg/index.js'))
    mkdirSync(join(place.workspace, 'target/debug/deps'), { recursive: true })
    writeFileSync(join(place.workspace, 'target/debug/deps/app-1f2e'), 'binary')
    linkSync(
      join(place.workspace, 'target/debug/deps/app-1f2e'),
      join(place.workspace, 'target/debug/app'),
    )
    const command = (line: string) => ({
      toolName: AGENT_COMMAND_TOOL,
      arguments: { commandLine: line },
      workspace: place.workspace,
    })
    expect(personOnlyReason(command('node node_modules/pkg/index.js'))).toBeNull()
    expect(personOnlyReason(command('./target/debug/app --help'))).toBeNull()
    writeFileSync(join(place.workspace, '.git/hooks/pre-commit'), 'hook')
    mkdirSync(join(place.workspace, 'node_modules/.cache'))
    linkSync(
      join(place.workspace, '.git/hooks/pre-commit'),
      join(place.workspace, 'node_modules/.cache/notes'),
    )
    expect(personOnlyReason(command('cp evil node_modules/.cache/notes'))).toMatchObject({
      class: 'hard-linked',
    })
  })
})
