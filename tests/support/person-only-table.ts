import { randomUUID } from 'node:crypto'
import { link, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { mintConsentToken } from '../../src/consent/consent-token.ts'
import type { ApprovalSummary, ApprovalView } from '../../src/contracts/approval.ts'
import { CONSENT_HEADER } from '../../src/contracts/http-headers.ts'
import type { RawResponse } from '../../src/main/core/runtime-client.ts'
import type { ToolCallRecord } from '../../src/contracts/room.ts'
import { decide, roomApprovals, toolCallsOf } from './policy-helpers.ts'
import { send, timeline, turnSettled } from './room-helpers.ts'
import { eventually, type RuntimeHarness } from './runtime-harness.ts'

/**
 * One table of what always needs a person, walked through every door that
 * may allow without one (tests/person-only-doors.test.ts and
 * tests/person-only-reviewers.test.ts). Paths are relative to a workspace
 * laid out by `layPersonOnlyWorkspace`: a git folder with a submodule's and
 * a worktree's git folders, a config that moves the hooks with
 * `core.hooksPath` and names a script as a program git runs, a link `notes -> .git/hooks`, a git folder under
 * an innocent name (`mirror`, holding `HEAD`, `objects/` and `refs/`), a
 * worktree's git folder naming it (`linked-wt`, `HEAD` and `commondir`), and
 * a nested and a bare repository whose configs name hooks folders outside
 * them (`shared-hooks`, `backup-hooks`), one that names the workspace
 * itself (`vendor/lib`), and a linked worktree of the workspace's own
 * repository (`agent-wt`, whose git folder is `.git/worktrees/w`).
 */
/** A hard link to `.git/hooks/pre-push` under an innocent name: writing
 *  it writes the hook. Not in PERSON_ONLY_PATHS: Assent's own write tool
 *  refuses a file with several names before any door is reached; the
 *  doors that write through other programs (an MCP server, an external
 *  agent) walk it themselves. */
export const HARD_LINKED_HOOK = 'linked/pre-push-copy'

export const PERSON_ONLY_PATHS: readonly string[] = [
  '.git/hooks/post-merge',
  '.git/modules/sub/hooks/pre-commit',
  '.git/modules/sub/config',
  '.git/worktrees/w/config',
  '.bashrc',
  '.config/fish/conf.d/path.fish',
  '.ssh/authorized_keys',
  '.codex/auth.json',
  '.env',
  '.envrc',
  '.husky/pre-commit',
  // lefthook's local config, commonly kept out of git, and overcommit's
  // own hooks: each runs at the person's next commit.
  'lefthook-local.yml',
  '.git-hooks/pre_commit/check.rb',
  // What lint-staged runs when a hook calls it, and simple-git-hooks' own
  // hooks.
  '.lintstagedrc.json',
  'simple-git-hooks.json',
  // What husky sources before every hook, where the home folder is the
  // workspace or the turn was widened to it.
  '.config/husky/init.sh',
  '.vscode/tasks.json',
  '.github/workflows/ci.yml',
  // What AI agents start and allow without asking.
  '.vscode/mcp.json',
  '.claude/settings.json',
  '.mcp.json',
  // What an assent-gateway started on this folder serves, reloaded as it
  // changes.
  'config/mcp.json',
  // An agent's own rules and hooks: what Codex runs unasked, what Claude's
  // hooks run.
  '.codex/rules/default.rules',
  '.claude/hooks/format.sh',
  // Mercurial's hooks live in its repository's config.
  '.hg/hgrc',
  // Found before what is installed: the person's next `git`, and a `.pth`
  // file Python runs at each start. An editor's extension, run as it starts.
  '.local/bin/git',
  '.local/lib/python3.12/site-packages/zz.pth',
  '.vscode/extensions/me.tool-1.0.0/extension.js',
  // The hooks folder under an innocent name, through the link.
  'notes/post-merge',
  // The folder the repository's config names as core.hooksPath.
  'tools/hooks/pre-commit',
  // A script the repository's config names as a program git runs (an
  // alias `!tools/lint.sh`).
  'tools/lint.sh',
  // A git folder by its shape under an innocent name (HEAD, objects/,
  // refs/): a bare repository to git run inside it.
  'mirror/config',
  'mirror/hooks/post-update',
  // A worktree's git folder by its shape (HEAD, and a commondir naming
  // the folder with the objects, refs and config).
  'linked-wt/config.worktree',
  // Hooks folders outside the repository whose config names them: a
  // nested repository's (`third_party/tool`) and a bare one's (`backup`).
  'shared-hooks/pre-commit',
  'backup-hooks/post-update',
  // A linked worktree's hooks folder: the repository's config moves the
  // hooks of each of its worktrees, to a folder in the worktree's own top.
  'agent-wt/tools/hooks/pre-push',
  // A hook right at the workspace's top: a nested repository
  // (`vendor/lib`) names the workspace itself as its hooks folder.
  'post-checkout',
  // `.git` as another file system opens it (here, on Linux, each is a
  // folder of its own): Windows drops a trailing dot, reads `::$…` as a
  // stream of the folder and gives it the short name GIT~1; HFS+ ignores a
  // zero-width joiner.
  '.git./hooks/pre-commit',
  '.git::$INDEX_ALLOCATION/hooks/pre-commit',
  'GIT~1/hooks/pre-commit',
  '.g\u200cit/hooks/pre-commit',
]

/**
 * Spellings of a person-only path that a server may read as that path, as
 * an MCP call's arguments (`workspace` is the workspace's absolute path):
 * a server that decodes percent-escapes, takes a `file:` URI's path
 * whatever its host, stops at a NUL or takes paths as keys reaches `.git`
 * through each. The rule reads every one as the path it could be.
 */
export const PERSON_ONLY_SPELLINGS: ReadonlyArray<
  readonly [string, (workspace: string) => Record<string, unknown>]
> = [
  ['a file: URI with an escaped slash', (ws) => ({ uri: `${fileUri(ws)}/.git%2Fconfig` })],
  ['a file: URI escaped dot and slash', (ws) => ({ uri: `${fileUri(ws)}/%2egit%2fhooks` })],
  ['a file: URI with a host', (ws) => ({ uri: `file://files.example${ws}/%2egit/config` })],
  ['a path with an escaped slash', () => ({ path: '.git%2Fhooks%2Fpre-commit' })],
  ['a path escaped twice', () => ({ path: '%252egit/config' })],
  ['a path cut short by a NUL', () => ({ path: '.git/config\0.txt' })],
  ['a path split by a NUL', () => ({ path: '.g\0it/config' })],
  ['a path as a key', () => ({ files: { '.git/hooks/pre-commit': 'x' } })],
  ['a path as a nested key', () => ({ ops: [{ set: { '.ssh/authorized_keys': 'x' } }] })],
]

function fileUri(path: string): string {
  return pathToFileURL(path).href
}

/**
 * Repositories where git keeps or runs something under a name the table
 * does not hold, laid over a workspace from `layPersonOnlyWorkspace`: each
 * sets the repository up and gives the paths (relative to the workspace,
 * each existing) that no grant may write and the sandbox keeps read-only.
 */
export const GIT_LAYOUTS: ReadonlyArray<
  readonly [string, (workspace: string) => Promise<void>, readonly string[]]
> = [
  [
    'a .git file naming a git folder under another name',
    async (ws) => {
      await rm(join(ws, '.git'), { recursive: true })
      await writeFile(join(ws, '.git'), 'gitdir: .repo/projects/app.git\n')
      await mkdir(join(ws, '.repo/projects/app.git/hooks'), { recursive: true })
      await writeFile(join(ws, '.repo/projects/app.git/config'), ORIGINAL)
      await writeFile(join(ws, '.repo/projects/app.git/hooks/pre-commit'), ORIGINAL)
    },
    ['.repo/projects/app.git/hooks/pre-commit', '.repo/projects/app.git/config'],
  ],
  [
    'core.hooksPath in a file the config includes',
    includingHooksConfig('[include]\n\tpath = ../conf/git.config\n'),
    ['conf/hooks/pre-commit', 'conf/git.config'],
  ],
  [
    'core.hooksPath in a file the config includes on a condition',
    includingHooksConfig('[includeIf "onbranch:release/**"]\n\tpath = ../conf/git.config\n'),
    ['conf/hooks/pre-commit', 'conf/git.config'],
  ],
  [
    'core.hooksPath that an include on a condition which does not hold seems to replace',
    async (ws) => {
      // git runs conf/hooks: the condition names another folder.
      await writeFile(
        join(ws, '.git/config'),
        '[core]\n\thooksPath = conf/hooks\n[includeIf "gitdir:/elsewhere/"]\n\tpath = ../conf/decoy.config\n',
      )
      await mkdir(join(ws, 'conf/hooks'), { recursive: true })
      await writeFile(join(ws, 'conf/decoy.config'), '[core]\n\thooksPath = decoy-hooks\n')
      await writeFile(join(ws, 'conf/hooks/pre-commit'), ORIGINAL)
    },
    ['conf/hooks/pre-commit'],
  ],
  [
    "core.hooksPath in the worktree's own config",
    async (ws) => {
      await writeFile(join(ws, '.git/config'), '[extensions]\n\tworktreeConfig = true\n')
      await writeFile(join(ws, '.git/config.worktree'), '[core]\n\thooksPath = conf/hooks\n')
      await mkdir(join(ws, 'conf/hooks'), { recursive: true })
      await writeFile(join(ws, 'conf/hooks/pre-commit'), ORIGINAL)
    },
    ['conf/hooks/pre-commit'],
  ],
  [
    'core.hooksPath continued on the next line',
    async (ws) => {
      await writeFile(join(ws, '.git/config'), '[core]\n\thooksPath = co\\\nnf/hooks\n')
      await mkdir(join(ws, 'conf/hooks'), { recursive: true })
      await writeFile(join(ws, 'conf/hooks/pre-commit'), ORIGINAL)
    },
    ['conf/hooks/pre-commit'],
  ],
  [
    'a repository nested in the workspace whose own config moves its hooks',
    async (ws) => {
      await mkdir(join(ws, 'vendor/lib/.git'), { recursive: true })
      await writeFile(join(ws, 'vendor/lib/.git/config'), '[core]\n\thooksPath = githooks\n')
      await mkdir(join(ws, 'vendor/lib/githooks'), { recursive: true })
      await writeFile(join(ws, 'vendor/lib/githooks/pre-commit'), ORIGINAL)
    },
    ['vendor/lib/githooks/pre-commit'],
  ],
]

/** A layout whose `.git/config` is `config`, which includes
 *  `conf/git.config`, which moves the hooks to `conf/hooks`. */
function includingHooksConfig(config: string): (workspace: string) => Promise<void> {
  return async (ws) => {
    await writeFile(join(ws, '.git/config'), config)
    await mkdir(join(ws, 'conf/hooks'), { recursive: true })
    await writeFile(join(ws, 'conf/git.config'), '[core]\n\thooksPath = conf/hooks\n')
    await writeFile(join(ws, 'conf/hooks/pre-commit'), ORIGINAL)
  }
}

/**
 * Command lines that write git's hooks or change what git runs without
 * writing `.git/hooks` as such (in a workspace from
 * `layPersonOnlyWorkspace`, where `.git/hooks/post-merge` exists): a shell
 * makes the name from braces, globs, quotes or escapes, builds it at run
 * time, or git is told where its hooks are. No door answers for any.
 */
export const COMMAND_SPELLINGS: ReadonlyArray<readonly [string, string]> = [
  ['braces', 'cp x {.git/hooks/post-merge,}'],
  ['braces inside a name', 'cp x .g{i,}t/hooks/post-merge'],
  ['a brace sequence', 'cp x .gi{s..u}/hooks/post-merge'],
  ['a glob class', 'cp x .gi[t]/hooks/post-merge'],
  ['a glob', 'cp x .g?t/hooks/post-m*'],
  ['quotes inside a name', 'cp x .g""it/hooks/post-merge'],
  ['a backslash inside a name', 'cp x .gi\\t/hooks/post-merge'],
  ['a shell script', "/bin/bash -lc 'cp x {.git/hooks/post-merge,}'"],
  ['a mount', 'docker run -v ./x:.git/hooks/post-merge img'],
  ['command substitution', 'cp x "$(printf .gi)t/hooks/post-merge"'],
  ['backquotes', 'cp x `printf .git`/hooks/post-merge'],
  ['ANSI-C quoting', "cp x $'\\x2egit'/hooks/post-merge"],
  ['eval', 'eval "$SCRIPT"'],
  ['git config', 'git config core.hooksPath /tmp/evil-hooks'],
  ["git's -c", 'git -c core.fsmonitor="touch /tmp/pwned" status'],
  ["git's --exec-path", 'git --exec-path=/tmp/evil status'],
  ['GIT_CONFIG_* variables', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath git commit'],
  ['a default value', 'cp x ${X:-.git}/hooks/post-merge'],
  ['a variable inside a name', 'cp x .g${X}it/hooks/post-merge'],
  ['a brace sequence with a step', 'cp x .gi{t..t..1}/hooks/post-merge'],
  ['a POSIX class', 'cp x .g[[:alpha:]]t/hooks/post-merge'],
  ['a line continued', 'cp x .gi\\\nt/hooks/post-merge'],
  ['a second line', 'echo hi\ngit config core.hooksPath /tmp/h'],
  ['a wrapper with options', 'sudo -u me timeout 10 git config core.hooksPath /tmp/h'],
  ['a redirection first', '>/dev/null git config core.hooksPath /tmp/h'],
  ['a command from a variable', 'G=git; $G config core.hooksPath /tmp/h'],
  ['a template', 'git init --template=/tmp/tpl'],
  ['a folder changed first', 'cd docs && cp x ../.g?t/hooks/post-merge'],
  ["find's -exec", 'find . -name x -exec git config core.hooksPath /tmp/h ;'],
  ['a quoted variable glued to a name', 'D=.gi; cp x "$D"t/hooks/post-merge'],
  ['quoted variables glued together', 'A=.g B=it; cp x "$A""$B"/hooks/post-merge'],
  ["git's command in braces", 'git {config,} core.hooksPath /tmp/h'],
  ["git's command from a variable", 'C=config; git $C core.hooksPath /tmp/h'],
  ["git's folder from a variable", 'git --git-dir=$D status'],
  ['a command from a variable past a wrapper', 'G=git; timeout 10 $G config core.hooksPath /tmp/h'],
  ["git's words from its input", 'echo config core.hooksPath /tmp/h | xargs git'],
  ['a glob that matches a leading dot', 'shopt -s dotglob; cp x *it/hooks/post-merge'],
  ['a glob with names ignored', 'GLOBIGNORE=q; cp x ?git/hooks/post-merge'],
  ['an extended glob', 'shopt -s extglob\ncp x .@(g)it/hooks/post-merge'],
  ['a glob in any case', 'shopt -s nocaseglob; cp x .GI?/hooks/post-merge'],
  ['a shell started with a glob option', "bash -O dotglob -c 'cp x *it/hooks/post-merge'"],
  ['a zsh glob qualifier', "zsh -c 'cp x *(D)/hooks/post-merge'"],
  ['options set for the shell it starts', "BASHOPTS=dotglob bash -c 'cp x *it/hooks/post-merge'"],
  ['a folder a glob names', 'cd tool? && cp ../x hooks/pre-commit'],
  ['a folder an option names', 'env -C tools cp ../x hooks/pre-commit'],
  ['a folder from a variable', 'cd $D && cp ../x hooks/pre-commit'],
  ['the folder before', 'cd docs; cd - && cp x .git/hooks/post-merge'],
  ['a value built in pieces', 'D=.gi; D+=t; cp x "$D"/hooks/post-merge'],
  ['a value a program builds', 'printf -v D %s%s .gi t; cp x "$D"/hooks/post-merge'],
  ['a shell option from a variable', 'O=dotglob; shopt -s $O; cp x *it/hooks/post-merge'],
  ['a folder from a variable after --', 'cd -- "$D" && cp ../x hooks/pre-commit'],
  ['a shell setting read from input', 'read GLOBIGNORE <<< q; cp x ?git/hooks/post-merge'],
  ['git behind setsid', 'setsid git config core.hooksPath /tmp/h'],
  ['git behind flock', 'flock /tmp/lock git config core.hooksPath /tmp/h'],
  ["script's command line", 'script -qc "git config core.hooksPath /tmp/h" /dev/null'],
  ['where pushes go', 'git remote set-url origin https://example.com/x'],
  ['a second remote', 'git remote add up2 https://example.com/x'],
  ["a submodule's address", 'git submodule set-url docs https://example.com/x'],
  ["Git LFS's hooks", 'git lfs install'],
  ["maintenance's scheduled runs", 'git maintenance register'],
  ['what a branch pushes to', 'git push -u up2 main'],
]

/** The spellings of `COMMAND_SPELLINGS` only a shell makes `.git` or a
 *  git command of: run as words with no shell (the scripted agent's
 *  `run`), each reaches the program as a harmless literal argument. */
export const SHELL_ONLY_SPELLINGS: ReadonlySet<string> = new Set([
  'a backslash inside a name',
  'command substitution',
  'ANSI-C quoting',
  'a default value',
  'a variable inside a name',
  'a line continued',
  'a second line',
  'a redirection first',
  'a quoted variable glued to a name',
  'quoted variables glued together',
  "git's command in braces",
  "git's command from a variable",
  "git's folder from a variable",
  'a command from a variable past a wrapper',
  "git's words from its input",
  'a glob that matches a leading dot',
  'a glob with names ignored',
  'an extended glob',
  'a glob in any case',
  'a folder a glob names',
  'a folder from a variable',
  'the folder before',
  'a value built in pieces',
  'a value a program builds',
  'a shell option from a variable',
  'a folder from a variable after --',
  'a shell setting read from input',
])

/** Command lines no rule covers, spelled with the same shell features:
 *  every door answers for them. */
export const COMMAND_CONTROLS: readonly string[] = [
  'cp x {docs,tmp}/ok.txt',
  'ls *.md docs/*',
  'git status',
  'git remote -v',
  'git remote get-url origin',
  'git push origin main',
  'git diff -- docs/ok.txt',
  'git commit -c HEAD',
  'git -C docs log --oneline',
  'echo "$HOME"',
  "rg -n 'TODO$' docs",
  'grep -c "git config" docs',
  'rg -n eval docs',
  'npm run eval',
  'rg -n GIT_CONFIG docs',
  'bash -lc "rg -n foo docs"',
  "sed -n '1,200p' docs/ok.txt",
  'for i in {1..100}; do echo $i; done',
  'set -euo pipefail; ls docs',
  'bash -euo pipefail -c "rg -n foo docs"',
  'timeout 10 rg -n "TODO.*" docs',
  'cd docs && ls *.md',
  'make -C docs',
  'f() { ls docs; }; f',
  'x=(a b); ls docs',
  '[ -d node_modules ] || npm install',
  'if [ -f package.json ]; then npm test; fi',
  '[[ -f go.mod ]] && go test ./...',
  'git commit -m "fix: bump to $VERSION"',
  'echo "hello $USER"',
  'git diff --name-only -z | git add --pathspec-from-file=- --pathspec-file-nul',
]

/** A path no rule covers: every door answers for it. A door that does not
 *  answer for this one would pass the table without applying any rule. */
export const CONTROL_PATH = 'docs/ok.txt'

/** What every file of the table holds before a test, and after a door
 *  that asked the person. */
export const ORIGINAL = 'original\n'

/** What an agent tries to write. */
export const EVIL = 'evil'

const FOLDERS = [
  '.git/hooks',
  '.git./hooks',
  '.git::$INDEX_ALLOCATION/hooks',
  'GIT~1/hooks',
  '.g\u200cit/hooks',
  '.git/modules/sub/hooks',
  '.git/worktrees/w',
  '.ssh',
  '.config/fish/conf.d',
  '.config/husky',
  '.codex/rules',
  '.husky',
  '.git-hooks/pre_commit',
  '.vscode/extensions/me.tool-1.0.0',
  '.local/bin',
  '.hg',
  '.local/lib/python3.12/site-packages',
  '.claude/hooks',
  'config',
  '.github/workflows',
  'tools/hooks',
  'mirror/hooks',
  'mirror/objects',
  'mirror/refs',
  'linked-wt',
  'agent-wt/tools/hooks',
  'third_party/tool/.git',
  'vendor/lib/.git',
  'shared-hooks',
  'backup/objects',
  'backup/refs',
  'backup-hooks',
  'docs',
]

/** Makes `workspace` (created if missing) a repository whose every path of
 *  the table exists and holds `ORIGINAL`, and a file `x` to copy; with
 *  `HARD_LINKED_HOOK` another name of a hook unless told not to (then no
 *  contained command there may be answered for: the sandbox cannot keep
 *  that name read-only). */
export async function layPersonOnlyWorkspace(
  workspace: string,
  { hardLinkedHook = true }: { hardLinkedHook?: boolean } = {},
): Promise<string> {
  for (const folder of FOLDERS) await mkdir(join(workspace, folder), { recursive: true })
  await writeFile(
    join(workspace, '.git/config'),
    '[core]\n\thooksPath = tools/hooks\n[alias]\n\tlint = !tools/lint.sh\n',
  )
  await symlink('.git/hooks', join(workspace, 'notes'))
  await writeFile(join(workspace, 'mirror/HEAD'), 'ref: refs/heads/main\n')
  await writeFile(join(workspace, 'linked-wt/HEAD'), 'ref: refs/heads/main\n')
  await writeFile(join(workspace, 'linked-wt/commondir'), '../mirror\n')
  await writeFile(join(workspace, '.git/worktrees/w/HEAD'), 'ref: refs/heads/task\n')
  await writeFile(join(workspace, '.git/worktrees/w/commondir'), '../..\n')
  await writeFile(join(workspace, 'agent-wt/.git'), 'gitdir: ../.git/worktrees/w\n')
  await writeFile(
    join(workspace, 'third_party/tool/.git/config'),
    '[core]\n\thooksPath = ../../shared-hooks\n',
  )
  await writeFile(join(workspace, 'vendor/lib/.git/config'), '[core]\n\thooksPath = ../..\n')
  await writeFile(join(workspace, 'backup/HEAD'), 'ref: refs/heads/main\n')
  await writeFile(join(workspace, 'backup/config'), '[core]\n\thooksPath = ../backup-hooks\n')
  for (const path of [...PERSON_ONLY_PATHS, CONTROL_PATH]) {
    await writeFile(join(workspace, path), ORIGINAL)
  }
  await mkdir(join(workspace, 'linked'), { recursive: true })
  await writeFile(join(workspace, '.git/hooks/pre-push'), ORIGINAL)
  if (hardLinkedHook) await linkHookElsewhere(workspace)
  await writeFile(join(workspace, 'x'), 'copied\n')
  return workspace
}

/** Makes `HARD_LINKED_HOOK` in a workspace laid out without it: another
 *  name of `.git/hooks/pre-push`. */
export async function linkHookElsewhere(workspace: string): Promise<void> {
  await link(join(workspace, '.git/hooks/pre-push'), join(workspace, HARD_LINKED_HOOK))
}

/** What the file at `path` holds now, through links; null if there is none. */
export async function contentOf(workspace: string, path: string): Promise<string | null> {
  try {
    return await readFile(join(workspace, path), 'utf8')
  } catch {
    return null
  }
}

/** How a turn's one tool call went: the person was asked (the approval
 *  still pending), or the turn settled without asking anyone. */
export type TurnOutcome =
  | { turnId: string; asked: ApprovalView; call?: undefined }
  | { turnId: string; asked?: undefined; call: ToolCallRecord | undefined }

/** Sends `text` and waits until its call either waits for the person or
 *  has settled unasked. For rooms where no reviewer or webhook looks at an
 *  approval first (a pending approval is the person's question). */
export async function turnOutcome(
  harness: RuntimeHarness,
  roomId: string,
  text: string,
): Promise<TurnOutcome> {
  const turnId = await send(harness, roomId, text)
  return eventually<TurnOutcome>(async () => {
    const pending = (await roomApprovals(harness, roomId)).find(
      (approval) => approval.turnId === turnId && approval.status === 'pending',
    )
    if (pending) return { turnId, asked: await harness.client.getApproval(pending.id) }
    const turn = (await timeline(harness, roomId)).turns.find((each) => each.id === turnId)
    if (turn?.status !== 'done' && turn?.status !== 'failed') return undefined
    return { turnId, call: (await toolCallsOf(harness, roomId, turnId))[0] }
  }, `"${text}" to ask or to settle`)
}

/** Sends `text` in a room where something decides before the person (a
 *  reviewer, a webhook), and waits for its approval to be decided or left
 *  to the person (pending, with the reason it was escalated). */
export async function reviewedApproval(
  harness: RuntimeHarness,
  roomId: string,
  text: string,
): Promise<{ turnId: string; approval: ApprovalSummary }> {
  const turnId = await send(harness, roomId, text)
  const approval = await eventually(async () => {
    const found = (await roomApprovals(harness, roomId)).find((each) => each.turnId === turnId)
    if (found === undefined) return undefined
    return found.status !== 'pending' || found.escalationReason !== undefined ? found : undefined
  }, `the approval of "${text}" to be decided or left to the person`)
  return { turnId, approval }
}

/** The person denies `approvalId`; the turn is waited for. */
export async function denyAndSettle(
  harness: RuntimeHarness,
  roomId: string,
  turnId: string,
  approvalId: string,
): Promise<void> {
  const view = await harness.client.getApproval(approvalId)
  const denied = await decide(harness, view, 'deny')
  if (denied.status !== 200) throw new Error(`deny answered ${denied.status}`)
  await turnSettled(harness, roomId, turnId)
}

/** Sets the room's approver webhook (or, with null, removes it: "Stop
 *  it") the way main does once the person confirmed it in the protected
 *  window: with a token bound to it. */
export function putApproverWebhook(
  harness: RuntimeHarness,
  roomId: string,
  url: string | null,
): Promise<RawResponse> {
  const clientRequestId = randomUUID()
  const connection = harness.connection()
  const token = mintConsentToken({
    key: connection.consentKey,
    now: Date.now(),
    binding: {
      kind: 'approver-webhook',
      subject: { roomId, clientRequestId, url, instanceId: connection.instanceId },
    },
  })
  return harness.client.raw(
    'PUT',
    `/v1/rooms/${roomId}/approver-webhook`,
    { clientRequestId, url },
    { [CONSENT_HEADER]: token },
  )
}
