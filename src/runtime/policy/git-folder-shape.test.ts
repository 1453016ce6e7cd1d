import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GIT_FOLDER_PARTS, gitFolderShaped } from './git-hooks-folder.ts'
import { personOnlyReason, type ActionTouch } from './person-only.ts'
import { personOnlyPathsIn } from './read-only-walk.ts'

// A git folder is known to git by what it holds, not by its name: git run
// inside a folder with HEAD, objects/ and refs/ takes it for a bare
// repository and runs what its config names. The rule knows it the same
// way, at the doors and in the sandbox's walk.

let root: string
let workspace: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-git-shape-')))
  workspace = join(root, 'ws')
  mkdirSync(workspace)
})
afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

const write = (path: string): ActionTouch => ({
  toolName: 'write_file',
  arguments: { path, content: 'x' },
  workspace,
})

/** Lays the parts of a git folder at `folder` (relative), all or some. */
function lay(folder: string, parts: readonly string[] = ['HEAD', 'objects', 'refs']): void {
  mkdirSync(join(workspace, folder), { recursive: true })
  for (const part of parts) {
    if (part === 'HEAD') writeFileSync(join(workspace, folder, 'HEAD'), 'ref: refs/heads/main\n')
    else mkdirSync(join(workspace, folder, part))
  }
}

describe('a git folder under a name the table does not know', () => {
  it('is one to git: git run inside it finds it', () => {
    lay('mirror')
    const found = execFileSync('git', ['rev-parse', '--git-dir'], {
      cwd: join(workspace, 'mirror'),
      env: { ...process.env, GIT_CEILING_DIRECTORIES: workspace },
    })
    expect(found.toString().trim()).toBe('.')
  })

  it.each(['mirror/config', 'mirror/hooks/post-update', 'mirror/HEAD', 'mirror/refs/heads/x'])(
    'needs a person for a write to %s',
    (path) => {
      lay('mirror')
      expect(personOnlyReason(write(path))).toMatchObject({
        path: join(workspace, path),
        class: 'git',
        reason: expect.stringContaining('bare repository'),
      })
    },
  )

  it.each(GIT_FOLDER_PARTS.map(({ name }) => name))(
    'needs a person for the write that makes one, %s last, and not before',
    (last) => {
      const others = GIT_FOLDER_PARTS.map(({ name }) => name).filter((name) => name !== last)
      lay('half', others)
      writeFileSync(join(workspace, 'half', 'config'), '[core]\n')
      const making = last === 'HEAD' ? 'half/HEAD' : `half/${last}/x`
      expect(personOnlyReason(write(making))).toMatchObject({ class: 'git' })
      // Two of the three make no git folder: writing beside them is free.
      expect(personOnlyReason(write('half/notes.txt'))).toBeNull()
      expect(personOnlyReason(write('half/config'))).toBeNull()
    },
  )

  it('is found however deep it lies, and counts the workspace itself', () => {
    lay('a/b/c/mirror')
    expect(personOnlyReason(write('a/b/c/mirror/config'))).toMatchObject({ class: 'git' })
    lay('.', ['objects', 'refs'])
    expect(personOnlyReason(write('HEAD'))).toMatchObject({ class: 'git' })
  })

  it('counts a part that is a link as what it may point to', () => {
    lay('linked', ['HEAD', 'refs'])
    mkdirSync(join(root, 'elsewhere'))
    symlinkSync(join(root, 'elsewhere'), join(workspace, 'linked', 'objects'))
    expect(personOnlyReason(write('linked/config'))).toMatchObject({ class: 'git' })
  })

  it('lets a door answer for a file beside one, or in a folder holding files of those names', () => {
    lay('mirror')
    writeFileSync(join(workspace, 'notes.txt'), 'x')
    expect(personOnlyReason(write('notes.txt'))).toBeNull()
    expect(personOnlyReason(write('docs/readme.md'))).toBeNull()
    // objects and refs as files git may not go into: no git folder.
    mkdirSync(join(workspace, 'plain'))
    for (const name of ['HEAD', 'objects', 'refs'])
      writeFileSync(join(workspace, 'plain', name), '')
    expect(personOnlyReason(write('plain/config'))).toBeNull()
  })

  // git only checks it may go into `objects` and `refs` (access X_OK),
  // which an executable file passes as a folder does.
  // Root's git goes in whichever execute bit is set; the person's needs
  // their own, which the rule does not tell apart (fails closed).
  it.each([
    ['755', true],
    ['700', true],
    ['654', process.getuid?.() === 0],
    ['645', process.getuid?.() === 0],
  ])(
    'counts objects and refs that are files of mode %s, as git does, at the doors and in the walk',
    (octal, gitGoesIn) => {
      const mode = Number.parseInt(octal, 8)
      mkdirSync(join(workspace, 'scripts'))
      writeFileSync(join(workspace, 'scripts/HEAD'), 'ref: refs/heads/main\n')
      for (const name of ['objects', 'refs']) {
        writeFileSync(join(workspace, 'scripts', name), '#!/bin/sh\n', { mode })
        chmodSync(join(workspace, 'scripts', name), mode)
      }
      writeFileSync(join(workspace, 'scripts/config'), '[alias]\n\tprobe = !echo ran-by-git\n')
      if (gitGoesIn) {
        const ran = execFileSync('git', ['probe'], {
          cwd: join(workspace, 'scripts'),
          env: { ...process.env, GIT_CEILING_DIRECTORIES: workspace },
        })
        expect(ran.toString().trim()).toBe('ran-by-git')
      }
      expect(personOnlyReason(write('scripts/config'))).toMatchObject({
        class: 'git',
        reason: expect.stringContaining('bare repository'),
      })
      expect(personOnlyPathsIn(workspace).paths).toEqual([join(workspace, 'scripts')])
      // The same files with no execute bit: git takes no git folder there.
      for (const name of ['objects', 'refs']) chmodSync(join(workspace, 'scripts', name), 0o644)
      expect(personOnlyReason(write('scripts/config'))).toBeNull()
      expect(personOnlyPathsIn(workspace).paths).toEqual([])
    },
  )

  it('is kept whole by the sandbox’s walk, not gone into', () => {
    lay('vendor/mirror')
    writeFileSync(join(workspace, 'vendor/mirror/config'), '[core]\n')
    mkdirSync(join(workspace, 'vendor/mirror/hooks/.husky'), { recursive: true })
    lay('half', ['HEAD', 'refs'])
    const { paths } = personOnlyPathsIn(workspace)
    expect(paths).toEqual([join(workspace, 'vendor/mirror')])
  })
})

describe("a worktree's git folder under a name the table does not know", () => {
  /** `wt` with HEAD and a commondir naming `cd`, which holds the objects,
   *  the refs and the config, but no HEAD of its own. */
  function layWorktree(parts: readonly string[] = ['HEAD', 'commondir']): void {
    mkdirSync(join(workspace, 'cd/objects'), { recursive: true })
    mkdirSync(join(workspace, 'cd/refs'))
    writeFileSync(join(workspace, 'cd/config'), '[core]\n\tbare = false\n')
    mkdirSync(join(workspace, 'wt'))
    if (parts.includes('HEAD')) writeFileSync(join(workspace, 'wt/HEAD'), 'ref: refs/heads/main\n')
    if (parts.includes('commondir')) writeFileSync(join(workspace, 'wt/commondir'), '../cd\n')
  }

  it('is one to git, which reads the config of the folder it names', () => {
    layWorktree()
    const run = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: join(workspace, 'wt'),
        env: { ...process.env, GIT_CEILING_DIRECTORIES: workspace },
      })
        .toString()
        .trim()
    expect(run('rev-parse', '--git-dir')).toBe('.')
    writeFileSync(
      join(workspace, 'cd/config'),
      '[core]\n\tbare = false\n[assent]\n\tprobe = read\n',
    )
    expect(run('config', 'assent.probe')).toBe('read')
  })

  it.each(['HEAD', 'commondir'])(
    'needs a person for the write that makes one, %s last, and not before',
    (last) => {
      layWorktree(last === 'HEAD' ? ['commondir'] : ['HEAD'])
      expect(personOnlyReason(write(`wt/${last}`))).toMatchObject({ class: 'git' })
      expect(personOnlyReason(write('wt/notes.txt'))).toBeNull()
    },
  )

  it('needs a person for a write in it, and is kept read-only with the folder it names', () => {
    layWorktree()
    expect(personOnlyReason(write('wt/config.worktree'))).toMatchObject({ class: 'git' })
    expect(personOnlyPathsIn(workspace).paths).toEqual([
      join(workspace, 'cd'),
      join(workspace, 'wt'),
    ])
  })
})

describe('gitFolderShaped', () => {
  it('looks at each part once, though both shapes start with HEAD', () => {
    const looked: string[] = []
    const present = (part: string) => {
      looked.push(part)
      return false
    }
    expect(gitFolderShaped(workspace, null, present)).toBe(false)
    expect(looked).toEqual([join(workspace, 'HEAD')])
  })

  it('still tells a worktree’s git folder (HEAD and commondir) from a bare one', () => {
    lay('worktree-git', ['HEAD'])
    writeFileSync(join(workspace, 'worktree-git', 'commondir'), '../main-git\n')
    expect(gitFolderShaped(join(workspace, 'worktree-git'))).toBe(true)
    lay('half', ['HEAD', 'objects'])
    expect(gitFolderShaped(join(workspace, 'half'))).toBe(false)
  })
})
