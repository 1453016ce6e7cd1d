import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { englishText } from '../../contracts/runtime-message.ts'
import { madeDuringTurn, shownPersonOnly, watchTurn } from './turn-made-watch.ts'

let workspace: string | undefined

afterEach(() => {
  if (workspace) rmSync(workspace, { recursive: true, force: true })
  workspace = undefined
})

/** A file change the person allowed leaves only a place it was shown by
 *  path as needing a person: around an ordinary path, what the agent made
 *  unasked of the table is moved aside all the same. */
describe('the turn watch and the file changes allowed in it', () => {
  it.each([
    ['a workflow the person allowed, by its path', '.github/workflows/ci.yml', true],
    ['an .envrc the person allowed, by its path', '.envrc', true],
    [
      'a bare repository made around an ordinary file the person allowed',
      'mirror/notes.txt',
      false,
    ],
  ] as const)('%s', (_name, allowedPath, left) => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-turn-watch-')))
    const ws = workspace
    const allowed: string[] = []
    const watch = watchTurn('ask-for-approval', ws, allowed)
    allowed.push(...shownPersonOnly([join(ws, allowedPath)], ws))
    // The allowed write, then (for the last row) the agent's own, unasked.
    mkdirSync(join(ws, allowedPath, '..'), { recursive: true })
    writeFileSync(join(ws, allowedPath), 'x\n')
    if (allowedPath.startsWith('mirror/')) {
      mkdirSync(join(ws, 'mirror', 'objects'))
      mkdirSync(join(ws, 'mirror', 'refs'))
      writeFileSync(join(ws, 'mirror', 'HEAD'), 'ref: refs/heads/main\n')
      writeFileSync(join(ws, 'mirror', 'config'), '[core]\n\tfsmonitor = touch pwned\n')
    }
    const note = madeDuringTurn(watch)
    expect(existsSync(join(ws, allowedPath))).toBe(left)
    expect(note === null).toBe(left)
  })

  it('leaves an empty folder of the table, and moves it aside once something is put in it', () => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-turn-watch-')))
    const ws = workspace
    mkdirSync(join(ws, 'was-empty', '.git'), { recursive: true })
    const watch = watchTurn('ask-for-approval', ws, [])
    // A mount point the agent's own sandbox makes, empty; and an empty
    // .git that was there, now given a config naming a program git runs.
    mkdirSync(join(ws, '.git'))
    writeFileSync(join(ws, 'was-empty', '.git', 'config'), '[core]\n\tfsmonitor = touch pwned\n')
    const made = madeDuringTurn(watch)
    const note = made === null ? '' : englishText(made)
    expect(existsSync(join(ws, '.git'))).toBe(true)
    expect(existsSync(join(ws, 'was-empty', '.git'))).toBe(false)
    expect(note).toContain('was-empty/.git: moved to')
    expect(note).not.toContain(`${ws}/.git:`)
  })

  it('watches nothing in full access', () => {
    expect(watchTurn('full-access', tmpdir(), [])).toBeNull()
  })
})
