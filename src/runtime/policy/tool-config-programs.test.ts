import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toolConfigPrograms } from './tool-config-programs.ts'

// How the configs are read as text (the doors and the sandbox are walked
// in tests/tool-config-programs-doors.test.ts): what a word names, and
// what names nothing.

let top = ''
beforeAll(() => {
  top = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-tool-config-')))
  mkdirSync(path.join(top, 'scripts'))
  mkdirSync(path.join(top, 'src'))
  mkdirSync(path.join(top, '.husky'))
})
afterAll(() => rmSync(top, { recursive: true, force: true }))

const named = (): string[] =>
  toolConfigPrograms(top, [])
    .map((program) => path.relative(top, program.path))
    .sort()

describe('toolConfigPrograms', () => {
  it("takes a hook's paths from the top and from its own folder, however it spells where it starts", () => {
    writeFileSync(
      path.join(top, '.husky', 'pre-push'),
      '#!/usr/bin/env sh\n"$(dirname -- "$0")/../scripts/a.sh"\n"$(git rev-parse --show-toplevel)/scripts/b.sh" "$@"\n$ROOT/scripts/c.sh\n',
    )
    chmodSync(path.join(top, '.husky', 'pre-push'), 0o755)
    expect(named()).toEqual(
      expect.arrayContaining(['scripts/a.sh', 'scripts/b.sh', 'scripts/c.sh']),
    )
    // An absolute path outside the top is no script of the workspace.
    expect(named().some((each) => each.endsWith('usr/bin/env'))).toBe(false)
  })

  it('names no pattern, URL, option or folder, and a bare pre-commit entry as a file at the top', () => {
    writeFileSync(
      path.join(top, '.pre-commit-config.yaml'),
      [
        'repos:',
        '  - repo: https://github.com/example/hooks',
        '    rev: v1.0.0',
        '    hooks: [{ id: x }]',
        '  - repo: local',
        '    hooks:',
        '      - id: check',
        '        entry: check.sh',
        '        files: ^src/.*\\.py$',
        '        exclude: src/',
        '        args: [--config=tools/lint.toml]',
        '',
      ].join('\n'),
    )
    const found = named()
    expect(found).toEqual(expect.arrayContaining(['check.sh', 'tools/lint.toml']))
    expect(found.some((each) => each.startsWith('src') || each.includes('github'))).toBe(false)
    rmSync(path.join(top, '.pre-commit-config.yaml'))
  })

  it("reads an editor's tasks only when one runs as the folder opens", () => {
    mkdirSync(path.join(top, '.vscode'), { recursive: true })
    const tasks = path.join(top, '.vscode', 'tasks.json')
    writeFileSync(tasks, '{ "tasks": [{ "command": "./scripts/build.sh", "group": "build" }] }')
    expect(named()).not.toContain('scripts/build.sh')
    writeFileSync(
      tasks,
      '{ "tasks": [{ "command": "./scripts/build.sh", "runOptions": { "runOn": "folderOpen" } }] }',
    )
    expect(named()).toContain('scripts/build.sh')
  })

  it('reads the places keys name without a slash, in each format, and no folder holding the top', () => {
    const lefthook = path.join(top, '.lefthook.json')
    writeFileSync(
      lefthook,
      '{\n  "extends": [\n    "shared.yml"\n  ],\n  "source_dir_local": "local-hooks"\n}\n',
    )
    const mise = path.join(top, 'mise.toml')
    writeFileSync(mise, '[env]\n_.path = [".", "{{config_root}}/tools"]\n_.source = "env.sh" # x\n')
    writeFileSync(path.join(top, 'shared.yml'), 'pre-commit:\n  jobs:\n    - run: bash extra.sh\n')
    const programs = toolConfigPrograms(top, [])
    const relative = (each: { path: string }) => path.relative(top, each.path)
    const folders = programs
      .filter((each) => each.folder === true)
      .map(relative)
      .sort()
    expect(folders).toEqual(['local-hooks', 'tools'])
    expect(named()).toEqual(expect.arrayContaining(['shared.yml', 'env.sh']))
    rmSync(lefthook)
    rmSync(mise)
  })
})
