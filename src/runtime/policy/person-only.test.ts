import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AGENT_COMMAND_TOOL, AGENT_TOOL_CALL_TOOL } from '../../contracts/agent-request.ts'
import {
  grantThatMayAnswer,
  MAX_CHECKED_CANDIDATES,
  personOnlyReason,
  touchOfApproval,
  type ActionTouch,
} from './person-only.ts'
import { personOnlyPathsIn, READ_ONLY_WALK_ENTRIES } from './read-only-walk.ts'

let root: string
/** A real workspace: a git folder whose config moves the hooks to
 *  tools/hooks, and a link `notes -> .git/hooks`. */
let workspace: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-person-only-')))
  workspace = join(root, 'ws')
  mkdirSync(join(workspace, '.git/hooks'), { recursive: true })
  mkdirSync(join(workspace, 'tools/hooks'), { recursive: true })
  writeFileSync(join(workspace, '.git/config'), '[core]\n\thooksPath = tools/hooks\n')
  symlinkSync('.git/hooks', join(workspace, 'notes'))
})
afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

const write = (path: string): ActionTouch => ({
  toolName: 'write_file',
  arguments: { path, content: 'x' },
  workspace,
})
const command = (argv: string[]): ActionTouch => ({
  toolName: 'run_command',
  arguments: { argv },
  workspace,
})
const mcp = (serverId: string, toolName: string, args: unknown): ActionTouch => ({
  toolName,
  mcpServerId: serverId,
  arguments: args,
  workspace,
})

describe('personOnlyReason: the paths an action names', () => {
  it.each([
    ['.git/hooks/post-merge', 'git'],
    ['.git/modules/sub/hooks/pre-commit', 'git'],
    ['.git/modules/sub/config', 'git'],
    ['.git/worktrees/w/config', 'git'],
    ['.gitmodules', 'git'],
    ['.husky/pre-commit', 'git'],
    ['.bashrc', 'shell-startup'],
    ['.ssh/authorized_keys', 'credentials'],
    ['.env', 'credentials'],
    ['.envrc', 'runs-later'],
    ['.vscode/tasks.json', 'runs-later'],
    ['.github/workflows/ci.yml', 'runs-later'],
  ])('needs a person for a write to %s, as written (%s)', (path, klass) => {
    expect(personOnlyReason(write(path))).toMatchObject({ path, class: klass })
  })

  it('lets a door answer for a write to an ordinary file', () => {
    expect(personOnlyReason(write('docs/ok.txt'))).toBeNull()
    expect(personOnlyReason(write('notes-about-git-hooks.md'))).toBeNull()
  })

  it('reads a command line word by word, and splits an option at its `=`', () => {
    expect(personOnlyReason(command(['cp', 'x', '.git/hooks/a']))).toMatchObject({
      path: '.git/hooks/a',
      class: 'git',
    })
    expect(personOnlyReason(command(['tool', '--out=.git/config']))).toMatchObject({
      path: '.git/config',
    })
    expect(
      personOnlyReason({
        toolName: AGENT_COMMAND_TOOL,
        arguments: { commandLine: "sh -c 'echo x > .envrc'", argv: null, cwd: workspace },
        workspace,
      }),
    ).toMatchObject({ path: '.envrc', class: 'runs-later' })
    expect(personOnlyReason(command(['cp', 'x', 'docs/y', '--out=build/z']))).toBeNull()
  })

  it("reads every string of an unknown MCP tool's arguments, however nested, whole and by word", () => {
    expect(
      personOnlyReason(mcp('notes', 'put', { options: { targets: ['docs/a', '.git/hooks/x'] } })),
    ).toMatchObject({ path: '.git/hooks/x' })
    expect(
      personOnlyReason(mcp('notes', 'put', { note: 'copy it to .bashrc please' })),
    ).toMatchObject({ path: '.bashrc', class: 'shell-startup' })
    expect(personOnlyReason(mcp('notes', 'put', { options: { targets: ['docs/a'] } }))).toBeNull()
  })

  it('reads a file: URI as the path it names, percent-encoding decoded', () => {
    const key = `file://${join(root, '%2Essh', 'notes.txt')}`
    expect(personOnlyReason(mcp('odd', 'resources/read', { uri: key }))).toMatchObject({
      path: join(root, '.ssh', 'notes.txt'),
      class: 'credentials',
    })
    const note = `file://${join(root, 'notes', 'plan.txt')}`
    expect(personOnlyReason(mcp('odd', 'resources/read', { uri: note }))).toBeNull()
    // Not a file URI: checked as written and decoded (a server may map
    // its own scheme onto files), and nothing in it is a place.
    expect(personOnlyReason(mcp('odd', 'resources/read', { uri: 'demo://notes%2Fx' }))).toBeNull()
    expect(
      personOnlyReason(mcp('odd', 'resources/read', { uri: 'demo://%2Essh/x' })),
    ).toMatchObject({ path: 'demo://.ssh/x', class: 'credentials' })
  })

  it('finds the git folder behind a link with an innocent name', () => {
    const real = join(workspace, '.git/hooks/post-merge')
    expect(personOnlyReason(write('notes/post-merge'))).toMatchObject({ path: real, class: 'git' })
    symlinkSync('.git', join(workspace, 'g'))
    expect(personOnlyReason(write('g/config'))).toMatchObject({
      path: join(workspace, '.git/config'),
    })
  })

  it('needs a person inside the folder core.hooksPath names, and nowhere else for it', () => {
    expect(personOnlyReason(write('tools/hooks/pre-commit'))).toMatchObject({
      path: join(workspace, 'tools/hooks/pre-commit'),
      class: 'git',
      reason: expect.stringContaining('core.hooksPath'),
    })
    expect(personOnlyReason(write('tools/build.sh'))).toBeNull()
  })

  it('reads core.hooksPath quoted, in a [Core] section of any case, and from a .git file pointer', () => {
    rmSync(join(workspace, '.git'), { recursive: true })
    mkdirSync(join(root, 'gitdir'))
    writeFileSync(join(workspace, '.git'), `gitdir: ${join(root, 'gitdir')}\n`)
    writeFileSync(join(root, 'gitdir/config'), '[Core]\n\tHooksPath = "my hooks"\n')
    mkdirSync(join(workspace, 'my hooks'))
    expect(personOnlyReason(write('my hooks/pre-push'))).toMatchObject({
      reason: expect.stringContaining('core.hooksPath'),
    })
    expect(personOnlyReason(write('tools/hooks/pre-commit'))).toBeNull()
  })

  it('needs a person in the hooks folder git really runs when its config line ends in a comment', () => {
    writeFileSync(join(workspace, '.git/config'), '[core]\n\thooksPath = tools/hooks ; moved\n')
    expect(personOnlyReason(write('tools/hooks/pre-commit'))).toMatchObject({
      path: join(workspace, 'tools/hooks/pre-commit'),
      class: 'git',
    })
    expect(personOnlyPathsIn(workspace).paths).toContain(join(workspace, 'tools/hooks'))
  })

  it("reads core.hooksPath from the repository's top when the workspace is a folder inside it", () => {
    const inner = join(workspace, 'packages/app')
    mkdirSync(join(inner, 'hooks'), { recursive: true })
    writeFileSync(join(workspace, '.git/config'), '[core]\n\thooksPath = packages/app/hooks\n')
    expect(personOnlyReason({ ...write('hooks/pre-commit'), workspace: inner })).toMatchObject({
      path: join(inner, 'hooks/pre-commit'),
      reason: expect.stringContaining('core.hooksPath'),
    })
    expect(personOnlyReason({ ...write('src/index.ts'), workspace: inner })).toBeNull()
  })

  it('asks when an action names more paths than can be checked, and not at the bound', () => {
    // The key `names` is a candidate too (a key may be a path).
    const names = (count: number) => Array.from({ length: count - 1 }, (_, i) => `docs/n${i}`)
    expect(personOnlyReason(mcp('notes', 'put', { names: names(MAX_CHECKED_CANDIDATES) }))).toBe(
      null,
    )
    expect(
      personOnlyReason(mcp('notes', 'put', { names: names(MAX_CHECKED_CANDIDATES + 1) })),
    ).toMatchObject({
      path: 'put',
      class: 'too-many-paths',
      reason: expect.stringContaining(`${MAX_CHECKED_CANDIDATES}`),
    })
  })

  it('reads a command under a command key of any tool it does not know, given as a line or an argv, from the folder beside it', () => {
    // From docs/, ../tools/hooks is the folder core.hooksPath names.
    const fromDocs = { cmd: 'cp x ../tools/hooks/pre-commit', cwd: 'docs' }
    expect(personOnlyReason(mcp('shell', 'run', fromDocs))).toMatchObject({ class: 'git' })
    expect(personOnlyReason(mcp('shell', 'run', { ...fromDocs, cwd: '.' }))).toBeNull()
    const agentTool = (input: unknown): ActionTouch => ({
      toolName: AGENT_TOOL_CALL_TOOL,
      arguments: { kind: 'search', title: 'Search', input },
      workspace,
    })
    expect(
      personOnlyReason(agentTool({ command: ['sh', '-c', 'cp x .g?t/config'] })),
    ).toMatchObject({ class: 'git' })
    expect(
      personOnlyReason(agentTool({ command: 'rg -l x docs | xargs git config a b' })),
    ).toMatchObject({ class: 'git-settings' })
    expect(
      personOnlyReason(agentTool({ workdir: join(workspace, 'docs'), command: 'cp x ../notes/x' })),
    ).toMatchObject({ class: 'git' })
    expect(personOnlyReason(agentTool({ command: ['rg', '-n', 'TODO', 'docs'] }))).toBeNull()
  })

  // What a command hands on to another program is read as a line too.
  const agentLine = (commandLine: string): ActionTouch => ({
    toolName: AGENT_COMMAND_TOOL,
    arguments: { commandLine, argv: null, cwd: workspace },
    workspace,
  })
  it.each([
    ['bash -c -- \'echo x >> .g""it/config\'', 'git'],
    ['bash -c -e \'cp x .g""it/config\'', 'git'],
    ["sh -e -c 'cp x .gi\\t/config'", 'git'],
    ['bash -xc \'cp x ~/.bash""rc\'', 'shell-startup'],
    ["fish -c 'cp x {.git}/config'", 'git'],
    ['env -S \'cp x .g""it/config\'', 'git'],
    ['watch -n 5 \'cp x .g""it/config\'', 'git'],
    ['git rebase -x \'cp x .g""it/config\' HEAD~1', 'git'],
    ['git fetch --upload-pack=\'cp x .g""it/config; git-upload-pack\' .', 'git'],
    ['/usr/lib/git-core/git-config core.hooksPath h', 'git-settings'],
    ['setpriv git config core.hooksPath h', 'git-settings'],
    ['git bisect run git config core.hooksPath h', 'git-settings'],
    ['git submodule foreach cp x hooks/pre-commit', 'unread-command'],
  ])('needs a person for %s (%s)', (line, klass) => {
    expect(personOnlyReason(agentLine(line))).toMatchObject({ class: klass })
  })

  it.each([
    "bash -c 'ls'",
    "bash -c -- 'ls -l docs'",
    "env -S 'ls -l'",
    'nice make',
    "git log --format='%H %s' HEAD~1..",
    "watch -n 5 'git status'",
  ])('lets a door answer for %s', (line) => {
    expect(personOnlyReason(agentLine(line))).toBeNull()
  })

  it("reads a tool's command given as an argv with its `args` beside it", () => {
    expect(
      personOnlyReason(
        mcp('shell', 'run', { command: ['bash', '-c'], args: ['--', 'cp x .g""it/config'] }),
      ),
    ).toMatchObject({ class: 'git' })
    expect(personOnlyReason(mcp('shell', 'run', { command: ['ls'], args: ['docs'] }))).toBeNull()
  })

  it("skips the text fields of tools Assent knows, never an unknown server's", () => {
    const args = { path: 'docs/a.txt', content: 'remember to chmod .git/hooks/pre-commit' }
    expect(personOnlyReason({ toolName: 'write_file', arguments: args, workspace })).toBeNull()
    expect(personOnlyReason(mcp('filesystem', 'write_file', args))).toBeNull()
    expect(personOnlyReason(mcp('notes', 'write_file', args))).toMatchObject({
      path: '.git/hooks/pre-commit',
    })
  })
})

describe('grantThatMayAnswer', () => {
  it('gives the grant found, unless the action needs a person; with none found, nothing', () => {
    let looked = 0
    const find = () => {
      looked += 1
      return 'grant'
    }
    expect(grantThatMayAnswer(write('.git/hooks/a'), 'on-request', find)).toBeUndefined()
    expect(grantThatMayAnswer(write('docs/a'), 'on-request', find)).toBe('grant')
    expect(looked).toBe(2)
    expect(grantThatMayAnswer(write('.git/hooks/a'), 'on-request', () => undefined)).toBeUndefined()
    expect(grantThatMayAnswer(write('docs/a'), 'on-request', () => undefined)).toBeUndefined()
  })

  it.each(['never', 'always', 'untrusted'] as const)(
    'under %s looks no grant up and gives none, whatever would be found',
    (policy) => {
      let looked = 0
      const find = () => {
        looked += 1
        return 'grant'
      }
      expect(grantThatMayAnswer(write('docs/a'), policy, find)).toBeUndefined()
      expect(looked).toBe(0)
    },
  )

  it.each(['on-request', 'suggest', 'auto'] as const)(
    'under %s gives the grant found',
    (policy) => {
      expect(grantThatMayAnswer(write('docs/a'), policy, () => 'grant')).toBe('grant')
    },
  )
})

describe('personOnlyPathsIn: what the command sandbox keeps read-only', () => {
  it('finds .git, a nested .git, editor tasks, a Jenkinsfile of any case and the hooks folder', () => {
    mkdirSync(join(workspace, 'sub/.git'), { recursive: true })
    mkdirSync(join(workspace, '.vscode'))
    writeFileSync(join(workspace, '.vscode/tasks.json'), '{}')
    writeFileSync(join(workspace, '.vscode/extensions.json'), '{}')
    writeFileSync(join(workspace, 'JENKINSFILE'), 'pipeline {}')
    writeFileSync(join(workspace, 'README.md'), 'hello')
    expect(personOnlyPathsIn(workspace)).toEqual({
      paths: [
        join(workspace, '.git'),
        join(workspace, '.vscode/tasks.json'),
        join(workspace, 'JENKINSFILE'),
        join(workspace, 'sub/.git'),
        join(workspace, 'tools/hooks'),
      ].sort(),
      truncated: false,
      inGitFolder: null,
      elsewhere: [],
    })
  })

  it('does not follow a link out of the workspace', () => {
    const outside = join(root, 'outside')
    mkdirSync(join(outside, '.git'), { recursive: true })
    mkdirSync(join(outside, 'deeper/.husky'), { recursive: true })
    symlinkSync(outside, join(workspace, 'linked'))
    const { paths } = personOnlyPathsIn(workspace)
    expect(paths.filter((path) => path.startsWith(outside) || path.includes('linked'))).toEqual([])
    expect(paths).toContain(join(workspace, '.git'))
  })

  it('reports a walk it had to stop, and then no door answers for a command there', () => {
    mkdirSync(join(workspace, 'many'))
    const command = { toolName: 'run_command', arguments: { argv: ['ls'] }, workspace }
    expect(personOnlyReason(command)).toBeNull()
    for (let i = 0; i < READ_ONLY_WALK_ENTRIES; i += 1) {
      writeFileSync(join(workspace, 'many', `f${i}`), '')
    }
    expect(personOnlyPathsIn(workspace).truncated).toBe(true)
    expect(personOnlyReason(command)).toMatchObject({ class: 'unwalked', path: workspace })
    // A write names its own path, which the rule reads whatever the walk.
    expect(personOnlyReason(write('docs/ok.txt'))).toBeNull()
  })

  // A folder whose entries cannot be read may hold a git folder: as an
  // ordinary user a listing can be taken away (`chmod 111`), and as any
  // user a path past the kernel's longest (4 096 bytes) cannot be listed
  // by its full path. Not taken as empty: a command there needs a person.
  it('reports a folder it cannot list, and then no door answers for a command there', () => {
    const command = { toolName: 'run_command', arguments: { argv: ['ls'] }, workspace }
    expect(personOnlyReason(command)).toBeNull()
    const step = 'd'.repeat(200)
    execFileSync(
      'perl',
      ['-e', `for (1..24) { mkdir "${step}"; chdir "${step}" or exit 9 } mkdir ".git"`],
      {
        cwd: workspace,
      },
    )
    try {
      expect(personOnlyPathsIn(workspace).truncated).toBe(true)
      const found = personOnlyReason(command)
      expect(found).toMatchObject({ class: 'unlistable' })
      expect(found?.path.startsWith(join(workspace, step))).toBe(true)
    } finally {
      execFileSync('rm', ['-rf', step], { cwd: workspace })
    }
  })

  it('walks every folder the command may write, as its approval shows them', () => {
    const widened = join(root, 'widened')
    mkdirSync(join(widened, 'many'), { recursive: true })
    for (let i = 0; i <= READ_ONLY_WALK_ENTRIES; i += 1) {
      writeFileSync(join(widened, 'many', `f${i}`), '')
    }
    const approval = (writableRoots: string[]) => ({
      toolName: 'run_command',
      arguments: { argv: ['ls'] },
      workingDirectory: workspace,
      containment: {
        contained: true as const,
        writableRoots,
        network: false as const,
        secretsHidden: true as const,
      },
    })
    expect(personOnlyReason(touchOfApproval(approval([workspace])))).toBeNull()
    expect(personOnlyReason(touchOfApproval(approval([workspace, widened])))).toMatchObject({
      class: 'unwalked',
      path: widened,
    })
  })
})
