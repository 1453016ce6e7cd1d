import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  type AgentFileChange,
} from '../../contracts/agent-request.ts'
import { mcpTouch, personOnlyReason } from './person-only.ts'
import { READ_ONLY_WALK_ENTRIES } from './read-only-walk.ts'

// A folder an action takes away is looked into, through the one rule
// every door applies (personOnlyReason): what only a person may change
// inside it makes the action the person's, whoever else would answer.

const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-held-inside-')))
afterAll(() => rmSync(workspace, { recursive: true, force: true }))
const lay = (relative: string, content = 'x\n') => {
  mkdirSync(path.dirname(path.join(workspace, relative)), { recursive: true })
  writeFileSync(path.join(workspace, relative), content)
}
lay('.git/HEAD', 'ref: refs/heads/main\n')
lay('vendor/lib/.git/HEAD', 'ref: refs/heads/main\n')
lay('vendor/lib/.git/hooks/pre-commit', '#!/bin/sh\n')
lay('vendor/lib/code.c')
lay('.github/workflows/ci.yml', 'on: push\n')
lay('tools/env/.envrc', 'export A=1\n')
lay('keys/home/.ssh/id_ed25519', 'PRIVATE\n')
lay('build/out/a.o')
mkdirSync(path.join(workspace, 'linked'))
symlinkSync(path.join(workspace, 'vendor'), path.join(workspace, 'linked', 'vendor'))

const agent = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' as const }
const change = (file: string, kind: AgentFileChange['change']): AgentFileChange => ({
  path: path.join(workspace, file),
  change: kind,
  movePath: null,
  preview: null,
  agentDiff: '',
  sourceSha256: 'a'.repeat(64),
})

const doors = {
  'Assent’s recursive delete': (folder: string) => ({
    toolName: 'delete_file',
    arguments: { path: folder, recursive: true },
    workspace,
  }),
  'an external agent’s delete of the folder': (folder: string) => ({
    toolName: AGENT_FILE_CHANGE_TOOL,
    arguments: { agent, changes: [change(folder, 'delete')] },
    workspace,
  }),
  'Assent’s command that removes it': (folder: string) => ({
    toolName: 'run_command',
    arguments: { argv: ['rm', '-rf', folder] },
    workspace,
  }),
  'an external agent’s command that moves it, behind a wrapper': (folder: string) => ({
    toolName: AGENT_COMMAND_TOOL,
    arguments: { agent, commandLine: `sudo -u me mv ${folder} /tmp/x`, argv: null, cwd: workspace },
    workspace,
  }),
  'an external agent’s find -delete': (folder: string) => ({
    toolName: AGENT_COMMAND_TOOL,
    arguments: {
      agent,
      commandLine: `find ${folder} -name '*.o' -delete`,
      argv: null,
      cwd: workspace,
    },
    workspace,
  }),
}

const HOLDING = [
  ['vendor', 'vendor/lib/.git'],
  ['.github', '.github/workflows'],
  ['tools', 'tools/env/.envrc'],
  ['keys', 'keys/home/.ssh'],
] as const

describe.each(Object.entries(doors))('%s', (door, touchOf) => {
  it.each(HOLDING)('of %s is the person’s: it holds %s', (folder, held) => {
    const found = personOnlyReason(touchOf(folder))
    // A move is found first where it puts what it moves (copied-places.ts):
    // `vendor/lib/.git` moved to /tmp/x is /tmp/x/lib/.git.
    if (door.includes('that moves')) {
      expect(found?.path.startsWith('/tmp/x/')).toBe(true)
      expect(found?.path.endsWith(path.relative(folder, held))).toBe(true)
      return
    }
    expect(found?.path).toBe(path.join(workspace, held))
    expect(found?.reason).toContain(`inside ${path.join(workspace, folder)}`)
  })

  it('of a folder that holds nothing of the table is left to the door (control)', () => {
    expect(personOnlyReason(touchOf('build'))).toBe(null)
  })
})

describe('what is looked into, and what is not', () => {
  it.each([
    ['rm -rf .', '.git'],
    ['rm -rf *', '.git'],
    ['rm -rf vendor/*', 'vendor/lib/.git'],
    ['rm -r ./build .github', '.github/workflows'],
    ['git clean -ffdx vendor', 'vendor/lib/.git'],
    ['git clean -f -f -d', '.git'],
    ['git clean --fo --f -d', '.git'],
    ['hub clean -ffd vendor', 'vendor/lib/.git'],
    ['ssh-agent git clean -ffd vendor', 'vendor/lib/.git'],
  ])('a command that removes %s is the person’s: %s is taken with it', (commandLine, held) => {
    const agentCommand = {
      toolName: AGENT_COMMAND_TOOL,
      arguments: { agent, commandLine, argv: null, cwd: workspace },
      workspace,
    }
    // An MCP server's shell tool runs it in no sandbox of Assent's either.
    const shellTool = mcpTouch(
      { serverId: 'shell', toolName: 'run', arguments: { command: commandLine } },
      workspace,
    )
    for (const touch of [agentCommand, shellTool]) {
      expect(personOnlyReason(touch)?.path, touch.toolName).toBe(path.join(workspace, held))
    }
  })

  it('a folder outside the workspace is judged by where it is: ~/.config holds .config/autostart', () => {
    const home = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-held-home-')))
    try {
      mkdirSync(path.join(home, '.config', 'autostart'), { recursive: true })
      writeFileSync(path.join(home, '.config', 'autostart', 'agent.desktop'), '[Desktop Entry]\n')
      mkdirSync(path.join(home, '.cache', 'pip'), { recursive: true })
      const removing = (folder: string) =>
        personOnlyReason({
          toolName: AGENT_COMMAND_TOOL,
          arguments: { agent, commandLine: `rm -rf ${folder}`, argv: null, cwd: workspace },
          workspace,
        })
      expect(removing(path.join(home, '.config'))?.path).toBe(
        path.join(home, '.config', 'autostart'),
      )
      // A folder beside it that holds nothing of the table (control).
      expect(removing(path.join(home, '.cache'))).toBe(null)
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('a command that only reads a folder does not have it walked', () => {
    for (const commandLine of [
      'ls -la vendor',
      'make -C vendor',
      'grep -r main vendor',
      // Forced once, git leaves nested repositories alone.
      'git clean -fdx vendor',
      'git status',
    ]) {
      expect(
        personOnlyReason({
          toolName: AGENT_COMMAND_TOOL,
          arguments: { agent, commandLine, argv: null, cwd: workspace },
          workspace,
        }),
      ).toBe(null)
    }
  })

  it('a folder read, or named to an MCP tool, is not walked (a listing takes nothing away)', () => {
    expect(
      personOnlyReason({ toolName: 'list_dir', arguments: { path: 'vendor' }, workspace }),
    ).toBe(null)
    const mcp = mcpTouch(
      { serverId: 'fs', toolName: 'list_directory', arguments: { path: 'vendor' } },
      workspace,
    )
    expect(personOnlyReason(mcp)).toBe(null)
  })

  it('a link to such a folder is looked through: what it leads to is judged', () => {
    expect(personOnlyReason(doors['Assent’s recursive delete']('linked/vendor'))?.path).toBe(
      path.join(workspace, 'vendor/lib/.git'),
    )
  })
})

describe('a folder whose contents cannot all be known', () => {
  it('too large to walk whole is the person’s', () => {
    const big = path.join(workspace, 'big')
    mkdirSync(big)
    for (let index = 0; index <= READ_ONLY_WALK_ENTRIES; index += 1) {
      writeFileSync(path.join(big, `f${index}`), '')
    }
    expect(personOnlyReason(doors['Assent’s recursive delete']('big'))).toMatchObject({
      path: big,
      class: 'unwalked',
    })
    rmSync(big, { recursive: true })
  })
})
