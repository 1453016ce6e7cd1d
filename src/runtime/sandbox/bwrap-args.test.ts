import { describe, expect, it } from 'vitest'
import { bwrapArgs } from './bwrap-args.ts'
import type { CommandSandboxPolicy } from './sandbox-policy.ts'

const policy: CommandSandboxPolicy = {
  writableRoots: ['/home/ada/project'],
  hiddenAncestors: [],
  readOnlyInside: ['/home/ada/project/.git'],
  hidden: [
    { path: '/home/ada/.ssh', kind: 'folder' },
    { path: '/home/ada/project/mcp.json', kind: 'file' },
  ],
  // The file lies in the workspace: no copy of its folder stands in for it.
  hiddenFileFolders: [],
  privateScratch: ['/tmp', '/run'],
  network: false,
}
const launch = {
  argv: ['sh', '-c', 'echo hi'],
  env: { PATH: '/usr/bin:/bin', HOME: '/home/ada' },
  cwd: '/home/ada/project/src',
}

/** Where `flag value…` first appears in `args`, or -1. */
function at(args: string[], ...run: string[]): number {
  return args.findIndex((_, i) => run.every((part, j) => args[i + j] === part))
}

/** The workspace held by the runtime, given to bubblewrap as descriptor 4. */
const held = new Map([['/home/ada/project', 4]])

describe('bwrapArgs', () => {
  const args = bwrapArgs(policy, launch, held)

  it('drops every capability, which root would otherwise keep in the sandbox', () => {
    expect(at(args, '--cap-drop', 'ALL')).toBeGreaterThan(-1)
    expect(args.indexOf('--cap-add')).toBe(-1)
  })

  it("keeps the new /proc's kernel settings read-only", () => {
    expect(at(args, '--ro-bind', '/proc/sys', '/proc/sys')).toBeGreaterThan(
      at(args, '--proc', '/proc'),
    )
  })

  it("keeps the new /proc's files that act on the whole machine read-only, where they exist", () => {
    for (const file of ['/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs']) {
      expect(at(args, '--ro-bind-try', file, file), file).toBeGreaterThan(
        at(args, '--proc', '/proc'),
      )
    }
  })

  it('mounts the root read-only first and the workspace writable over it', () => {
    expect(at(args, '--ro-bind', '/', '/')).toBeGreaterThan(-1)
    expect(at(args, '--bind-fd', '4', '/home/ada/project')).toBeGreaterThan(
      at(args, '--ro-bind', '/', '/'),
    )
    // Never by its path, which could be swapped after it was checked.
    expect(at(args, '--bind', '/home/ada/project')).toBe(-1)
  })

  it('gives private scratch folders before the workspace, so a workspace under /tmp stays real', () => {
    expect(at(args, '--tmpfs', '/tmp')).toBeGreaterThan(at(args, '--ro-bind', '/', '/'))
    expect(at(args, '--tmpfs', '/tmp')).toBeLessThan(
      at(args, '--bind-fd', '4', '/home/ada/project'),
    )
    expect(at(args, '--tmpfs', '/run')).toBeLessThan(
      at(args, '--bind-fd', '4', '/home/ada/project'),
    )
  })

  it('keeps .git read-only over the writable workspace', () => {
    const git = at(args, '--ro-bind', '/home/ada/project/.git', '/home/ada/project/.git')
    expect(git).toBeGreaterThan(at(args, '--bind-fd', '4', '/home/ada/project'))
  })

  it('binds .git by the descriptor the runtime held it with, when it holds one', () => {
    const byFd = bwrapArgs(policy, launch, held, new Map([['/home/ada/project/.git', 5]]))
    const git = at(byFd, '--ro-bind-fd', '5', '/home/ada/project/.git')
    expect(git).toBeGreaterThan(at(byFd, '--bind-fd', '4', '/home/ada/project'))
    expect(at(byFd, '--ro-bind', '/home/ada/project/.git')).toBe(-1)
  })

  it('hides secrets last, as an empty read-only folder or an empty file', () => {
    const ssh = at(args, '--tmpfs', '/home/ada/.ssh', '--remount-ro', '/home/ada/.ssh')
    expect(ssh).toBeGreaterThan(at(args, '--ro-bind', '/home/ada/project/.git'))
    expect(at(args, '--ro-bind', '/dev/null', '/home/ada/project/mcp.json')).toBeGreaterThan(ssh)
  })

  it('cuts the network and every namespace it can', () => {
    for (const flag of [
      '--unshare-net',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--unshare-user-try',
      '--die-with-parent',
      '--new-session',
    ]) {
      expect(args, flag).toContain(flag)
    }
  })

  it('starts the command with exactly the given environment, in the checked folder', () => {
    const clear = at(args, '--clearenv')
    expect(clear).toBeGreaterThan(-1)
    expect(at(args, '--setenv', 'PATH', '/usr/bin:/bin')).toBeGreaterThan(clear)
    expect(at(args, '--setenv', 'HOME', '/home/ada')).toBeGreaterThan(clear)
    expect(args.filter((arg) => arg === '--setenv')).toHaveLength(2)
    expect(args.slice(-6)).toEqual([
      '--chdir',
      '/home/ada/project/src',
      '--',
      'sh',
      '-c',
      'echo hi',
    ])
  })

  it('mounts nothing writable in a read-only room', () => {
    const readOnly = bwrapArgs({ ...policy, writableRoots: [], readOnlyInside: [] }, launch, held)
    expect(readOnly).not.toContain('--bind')
    expect(readOnly).not.toContain('--bind-fd')
  })

  it('binds no writable root it was not given a held descriptor for', () => {
    const unheld = bwrapArgs(policy, launch, new Map())
    expect(unheld).not.toContain('--bind')
    expect(unheld).not.toContain('--bind-fd')
  })
})

describe('bwrapArgs for a hidden folder below a folder in the workspace', () => {
  const data = '/home/ada/project/.dev/data'
  const below: CommandSandboxPolicy = {
    ...policy,
    hidden: [{ path: data, kind: 'folder' }],
    hiddenAncestors: ['/home/ada/project/.dev'],
  }

  it('binds the folder above it onto itself by its held descriptor, before hiding it', () => {
    const args = bwrapArgs(below, launch, new Map([...held, ['/home/ada/project/.dev', 5]]))
    const dev = at(args, '--bind-fd', '5', '/home/ada/project/.dev')
    expect(dev).toBeGreaterThan(at(args, '--bind-fd', '4', '/home/ada/project'))
    expect(at(args, '--tmpfs', data, '--remount-ro', data)).toBeGreaterThan(dev)
  })

  it('still makes it a mount point, read-only, when it was not held', () => {
    const args = bwrapArgs(below, launch, held)
    const dev = at(args, '--ro-bind', '/home/ada/project/.dev', '/home/ada/project/.dev')
    expect(dev).toBeGreaterThan(-1)
    expect(at(args, '--tmpfs', data)).toBeGreaterThan(dev)
  })
})

describe('bwrapArgs for a hidden file outside the writable roots', () => {
  const home = '/home/ada'
  const copied: CommandSandboxPolicy = {
    ...policy,
    hidden: [
      { path: `${home}/.ssh`, kind: 'folder' },
      { path: `${home}/.netrc`, kind: 'file' },
    ],
    hiddenFileFolders: [
      {
        path: home,
        entries: [
          { name: '.bashrc', as: 'link', target: 'dotfiles/bashrc' },
          { name: '.netrc', as: 'empty-file' },
          { name: '.ssh', as: 'empty-folder' },
          { name: 'project', as: 'bound' },
        ],
      },
    ],
  }
  // The entry the copy shows from the real folder, held by the runtime
  // and given as descriptor 5.
  const args = bwrapArgs(copied, launch, held, new Map([[`${home}/project`, 5]]))

  it('shows its folder as a read-only copy, the file empty on an entry of its own', () => {
    const copy = at(args, '--tmpfs', home)
    expect(copy).toBeGreaterThan(at(args, '--ro-bind', '/', '/'))
    expect(at(args, '--ro-bind', '/dev/null', `${home}/.netrc`)).toBeGreaterThan(copy)
    expect(at(args, '--dir', `${home}/.ssh`)).toBeGreaterThan(copy)
    expect(at(args, '--symlink', 'dotfiles/bashrc', `${home}/.bashrc`)).toBeGreaterThan(copy)
    // By its descriptor, never by its path, which a bind would follow to
    // wherever a link put there since leads.
    expect(at(args, '--ro-bind-fd', '5', `${home}/project`)).toBeGreaterThan(copy)
    expect(at(args, '--remount-ro', home)).toBeGreaterThan(
      at(args, '--ro-bind-fd', '5', `${home}/project`),
    )
    expect(at(args, '--ro-bind-try', `${home}/project`)).toBe(-1)
    // Not hidden a second time by a mount over its path, which could be
    // made only on the real folder's entry.
    expect(args.filter((arg) => arg === `${home}/.netrc`)).toHaveLength(1)
    expect(at(args, '--tmpfs', `${home}/.ssh`)).toBe(-1)
  })

  it('binds the writable workspace over the copy it lies in', () => {
    expect(at(args, '--bind-fd', '4', '/home/ada/project')).toBeGreaterThan(
      at(args, '--remount-ro', home),
    )
  })

  it('leaves out an entry the runtime does not hold', () => {
    const unheld = bwrapArgs(copied, launch, held)
    expect(at(unheld, '--ro-bind-fd', '5')).toBe(-1)
    expect(at(unheld, '--ro-bind-try', `${home}/project`)).toBe(-1)
  })

  it('hides whole a folder it could not list', () => {
    const whole = bwrapArgs(
      { ...copied, hiddenFileFolders: [{ path: home, entries: null }] },
      launch,
      held,
    )
    expect(at(whole, '--tmpfs', home, '--remount-ro', home)).toBeGreaterThan(-1)
    expect(whole).not.toContain(`${home}/.netrc`)
    expect(whole).not.toContain(`${home}/.ssh`)
  })
})
