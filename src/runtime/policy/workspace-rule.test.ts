import { mkdtemp, realpath, rm, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  workspaceRefusal,
  workspaceRuleContext,
  type WorkspaceRefusalKind,
  type WorkspaceRuleContext,
} from './workspace-rule.ts'

/** A machine where `/bin` is `/usr/bin` and the home folder is reached
 *  through a link, as on many distributions and managed desktops. */
const CONTEXT: WorkspaceRuleContext = {
  homes: ['/home/ada', '/data/home/ada'],
  systemFolders: ['/bin', '/usr/bin', '/etc', '/usr', '/var', '/root', '/proc', '/lib', '/lib64'],
  kernelTrees: ['/proc', '/sys', '/dev'],
}

const cases: [string, string, string, WorkspaceRefusalKind | null][] = [
  ['the file-system root', '/', '/', 'filesystem_root'],
  ['a link to the root', '/tmp/to-root', '/', 'filesystem_root'],
  ['the home folder', '/home/ada', '/data/home/ada', 'home_folder'],
  ['the home folder by its real path', '/data/home/ada', '/data/home/ada', 'home_folder'],
  ['the home folder with a trailing slash', '/home/ada/', '/data/home/ada', 'home_folder'],
  ['a system folder', '/etc', '/etc', 'system_folder'],
  ['a system folder reached by its real path', '/usr/bin', '/usr/bin', 'system_folder'],
  ['a link to a system folder', '/tmp/cfg', '/etc', 'system_folder'],
  ['/root', '/root', '/root', 'system_folder'],
  ['/proc/self/cwd, whatever it resolves to', '/proc/self/cwd', '/home/ada/work', 'kernel_tree'],
  ['a folder inside /sys', '/sys/class', '/sys/class', 'kernel_tree'],
  ['a link into /dev', '/tmp/null', '/dev/null', 'kernel_tree'],
  ['shared memory itself, shared by every user', '/tmp/shm', '/dev/shm', 'system_folder'],
  ['a folder made inside shared memory (a tmpfs)', '/dev/shm/build', '/dev/shm/build', null],
  ['/dev reached through shared memory', '/dev/shm/../sda', '/dev/sda', 'kernel_tree'],
  ['a project inside the home folder', '/home/ada/src/app', '/data/home/ada/src/app', null],
  ['a folder inside /var', '/var/tmp/build', '/var/tmp/build', null],
  ['a folder inside /usr', '/usr/local/src/app', '/usr/local/src/app', null],
  ['a sibling named like a kernel tree', '/procurement', '/procurement', null],
  ['a folder in /tmp', '/tmp/project', '/tmp/project', null],
]

describe('which folders can be a workspace', () => {
  it.each(cases)('judges %s', (_name, requested, real, kind) => {
    const refusal = workspaceRefusal(requested, real, CONTEXT)
    expect(refusal?.kind ?? null).toBe(kind)
    if (refusal !== null) expect(refusal.reason).toContain('/')
  })
})

describe('the rule on this machine', () => {
  let root: string

  beforeEach(async () => {
    root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-ws-rule-')))
  })

  afterEach(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('refuses the home folder by both of its names', async () => {
    const link = path.join(root, 'home-link')
    await symlink(root, link)
    const context = workspaceRuleContext(link)
    expect(workspaceRefusal(link, root, context)?.kind).toBe('home_folder')
    expect(workspaceRefusal(root, root, context)?.kind).toBe('home_folder')
    expect(workspaceRefusal(path.join(root, 'p'), path.join(root, 'p'), context)).toBeNull()
  })

  it('refuses /etc and /bin by their real paths', async () => {
    const context = workspaceRuleContext(root)
    for (const folder of ['/etc', '/bin']) {
      const real = await realpath(folder)
      expect(workspaceRefusal(real, real, context)?.kind).toBe('system_folder')
    }
  })
})
