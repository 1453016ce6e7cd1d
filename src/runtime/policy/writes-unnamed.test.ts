import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AGENT_COMMAND_TOOL } from '../../contracts/agent-request.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from './person-only.ts'

// A command that unpacks an archive or applies a patch writes files its
// words do not name: whatever the archive holds, `.git/config` among
// them. Walked through each door that runs a command outside Assent's
// sandbox (an external agent's, an MCP server's shell tool), against
// Assent's own `run_command`, whose sandbox keeps git's folder read-only.

const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-writes-unnamed-')))
mkdirSync(path.join(workspace, '.git', 'hooks'), { recursive: true })
writeFileSync(path.join(workspace, '.git', 'config'), '[core]\n\tbare = false\n')
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

const DOORS: ReadonlyArray<[string, (line: string) => ActionTouch]> = [
  [
    "an external agent's command",
    (line) => ({
      toolName: AGENT_COMMAND_TOOL,
      arguments: { commandLine: line, argv: null, cwd: workspace },
      workspace,
    }),
  ],
  [
    "an MCP server's shell tool",
    (line) =>
      mcpTouch({ serverId: 'shell', toolName: 'execute', arguments: { command: line } }, workspace),
  ],
]

const UNPACKS = [
  'tar xzf vendor.tgz',
  'tar -xvf vendor.tar',
  'tar --extract -f vendor.tar',
  'tar -C sub -xf vendor.tar',
  'sudo tar xf vendor.tar',
  'cd sub && tar xf ../vendor.tar',
  'unzip -o site.zip',
  'unzip site.zip -d public',
  '7z x bundle.7z',
  'unrar x bundle.rar',
  'cpio -idv < image.cpio',
  'ar x lib.a',
  'jar xf app.jar',
  'dpkg-deb -x pkg.deb out',
  'patch -p1 < fix.diff',
  'git diff | patch -p0',
]

const READS_OR_NAMES = [
  'tar -czf out.tgz src',
  'tar -tf vendor.tar',
  'tar --exclude=x -cf out.tar src',
  'unzip -l site.zip',
  '7z l bundle.7z',
  'ar t lib.a',
  'echo patch',
]

describe.each(DOORS)('a command run as %s', (_door, touchOf) => {
  it.each(UNPACKS)('needs the person when it unpacks or patches: %s', (line) => {
    expect(personOnlyReason(touchOf(line))).toMatchObject({ class: 'unread-command' })
  })

  it.each(READS_OR_NAMES)('is judged by its words when it writes nothing unnamed: %s', (line) => {
    expect(personOnlyReason(touchOf(line))).toBeNull()
  })
})

describe("Assent's own run_command", () => {
  it.each(UNPACKS)('is left to its sandbox, which keeps git read-only: %s', (line) => {
    const touch: ActionTouch = {
      toolName: 'run_command',
      arguments: { argv: ['/bin/sh', '-c', line] },
      workspace,
    }
    expect(personOnlyReason(touch)?.class).not.toBe('unread-command')
  })
})
