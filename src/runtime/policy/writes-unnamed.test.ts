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
// A nested repository, whose git folder a command taking `vendor` away
// takes with it (held-inside.ts).
mkdirSync(path.join(workspace, 'vendor', 'lib', '.git'), { recursive: true })
writeFileSync(path.join(workspace, 'vendor', 'lib', '.git', 'HEAD'), 'ref: refs/heads/main\n')
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

const asAgent = (line: string): ActionTouch => ({
  toolName: AGENT_COMMAND_TOOL,
  arguments: { commandLine: line, argv: null, cwd: workspace },
  workspace,
})
const asMcpShell = (line: string): ActionTouch =>
  mcpTouch({ serverId: 'shell', toolName: 'execute', arguments: { command: line } }, workspace)

const DOORS: ReadonlyArray<[string, (line: string) => ActionTouch]> = [
  ["an external agent's command", asAgent],
  ["an MCP server's shell tool", asMcpShell],
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
  'if true; then tar -tf vendor.tar; fi',
  'timeout 5 ls vendor',
  'git apply --check fix.diff',
  'git log --oneline',
  'python3 -m tarfile -l vendor.tar',
  'cabextract -l setup.cab',
  'unsquashfs -l image.sqfs',
  'hg log',
  'quilt series',
]

describe.each(DOORS)('a command run as %s', (_door, touchOf) => {
  it.each(UNPACKS)('needs the person when it unpacks or patches: %s', (line) => {
    expect(personOnlyReason(touchOf(line))).toMatchObject({ class: 'unread-command' })
  })

  it.each(READS_OR_NAMES)('is judged by its words when it writes nothing unnamed: %s', (line) => {
    expect(personOnlyReason(touchOf(line))).toBeNull()
  })
})

// Where the shell finds the program a command runs (shell-commands.ts):
// past its keywords, any wrapper it knows, and `find`'s `-exec`; and the
// other programs that unpack or apply what names its own files. Unpacking
// is judged at the doors that run a command outside Assent's sandbox;
// taking `vendor` away, with the nested repository in it, at an external
// agent's command and Assent's own (an MCP tool's folder is not walked).
const asRunCommand = (line: string): ActionTouch => ({
  toolName: 'run_command',
  arguments: { argv: ['/bin/sh', '-c', line] },
  workspace,
})
const nestedGit = path.join(workspace, 'vendor', 'lib', '.git')
const WHERE_THE_PROGRAM_IS: ReadonlyArray<readonly [string, 'unpacks' | 'takes vendor']> = [
  ['{ tar -xf docs/evil.tar; }', 'unpacks'],
  ['if true; then tar -xf docs/evil.tar; fi', 'unpacks'],
  ['! tar -xf docs/evil.tar', 'unpacks'],
  ['for a in docs/evil.tar; do tar -xf $a; done', 'unpacks'],
  ['while true; do tar -xf docs/evil.tar; done', 'unpacks'],
  ['timeout 60 tar -xf docs/evil.tar', 'unpacks'],
  ['taskset 1 tar -xf docs/evil.tar', 'unpacks'],
  ['flock docs/lock tar -xf docs/evil.tar', 'unpacks'],
  ['strace -o docs/log tar -xf docs/evil.tar', 'unpacks'],
  ['prlimit --nofile=64 tar -xf docs/evil.tar', 'unpacks'],
  ['chronic tar -xf docs/evil.tar', 'unpacks'],
  ['unbuffer tar -xf docs/evil.tar', 'unpacks'],
  ['fakeroot tar -xf docs/evil.tar', 'unpacks'],
  ['busybox tar -xf docs/evil.tar', 'unpacks'],
  ["find docs -name '*.tar' -exec tar -xf {} +", 'unpacks'],
  ['tar --ext -f docs/evil.tar', 'unpacks'],
  ['tar --ge --file=docs/evil.tar', 'unpacks'],
  ['git apply docs/evil.patch', 'unpacks'],
  ['git -C docs am evil.mbox', 'unpacks'],
  ['python3 -m tarfile -e docs/evil.tar', 'unpacks'],
  ['python3.12 -m zipfile --extract docs/evil.zip .', 'unpacks'],
  ['unsquashfs -d . docs/evil.sqfs', 'unpacks'],
  ['cabextract docs/evil.cab', 'unpacks'],
  ['unar docs/evil.zip', 'unpacks'],
  ['aunpack docs/evil.zip', 'unpacks'],
  ['bsdcpio -i < docs/evil.cpio', 'unpacks'],
  ['hg import docs/evil.patch', 'unpacks'],
  ['quilt push -a', 'unpacks'],
  ['{ rm -rf vendor; }', 'takes vendor'],
  ['timeout 5 rm -rf vendor', 'takes vendor'],
  ['if true; then rm -rf vendor; fi', 'takes vendor'],
  ['! rm -rf vendor', 'takes vendor'],
  ['busybox rm -rf vendor', 'takes vendor'],
  ['faketime 2020-01-01 tar -xf docs/evil.tar', 'unpacks'],
  ['ssh-agent rm -rf vendor', 'takes vendor'],
]

describe('a command whose program the shell finds past keywords and wrappers', () => {
  it.each(WHERE_THE_PROGRAM_IS)('needs the person: %s (%s)', (line, what) => {
    if (what === 'unpacks') {
      for (const touch of [asAgent(line), asMcpShell(line)]) {
        expect(personOnlyReason(touch)).toMatchObject({ class: 'unread-command' })
      }
    } else {
      for (const touch of [asAgent(line), asRunCommand(line)]) {
        expect(personOnlyReason(touch)?.path).toBe(nestedGit)
      }
    }
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

// git's commands that write a revision's files into the work tree: a
// commit's names are the agent's to choose as an archive's are (`git
// fetch <url>` brings one from anywhere). Against git's commands that
// write nothing there, or only a branch where HEAD is.
const WRITES_A_COMMIT = [
  'git merge feature',
  'git pull https://example.invalid/r.git main',
  'git cherry-pick FETCH_HEAD',
  'git revert HEAD',
  'git rebase main',
  'git stash',
  'git stash pop',
  'git stash apply stash@{1}',
  'git stash -u',
  'git reset --hard feature',
  'git reset --keep HEAD~1',
  'git checkout feature',
  'git checkout -',
  'git checkout feature -- .',
  'git checkout -- docs',
  'git checkout -b topic origin/main',
  'git checkout --pathspec-from-file=list.txt',
  'git switch feature',
  'git switch -c topic origin/main',
  'git switch --detach v1.0',
  'git restore --source=feature .',
  'git restore .',
  'git restore -SW .',
  'git read-tree -u -m HEAD feature',
  'git checkout-index -a -f',
  'git submodule update --init',
  'git submodule update --remote',
  'git bisect start HEAD v1.0',
  'git bisect good',
  'git sparse-checkout set src',
  'git filter-branch --tree-filter true HEAD',
  'git -C sub merge origin/main',
  'timeout 60 git pull',
  'git-merge feature',
  // git's own spellings of the options that write: any start of a long
  // one, short ones bundled, and a safe one taken back or glued to a value.
  'git reset --har FETCH_HEAD',
  'git reset --me HEAD~1',
  'git read-tree -um FETCH_HEAD',
  'git read-tree --res -u FETCH_HEAD',
  'git apply --check --no-check fix.diff',
  'git apply --stat --no-st fix.diff',
  'git restore --staged --no-staged .',
  'git restore --staged --wor .',
  'git restore -sHEADS .',
  // Forced over the work tree, with no revision.
  'git checkout -f',
  'git checkout --forc',
  'git checkout -qf',
  'git checkout -f -b topic',
  'git switch --discard-changes -c topic',
  // Behind a program not known to run its words.
  'ssh-agent git reset --hard FETCH_HEAD',
  'uv run git merge feature',
  // hub is git; the forges' tools check out a request's branch.
  'hub checkout https://github.com/o/r/pull/12',
  'hub sync',
  'gh pr checkout 12',
  'gh co 12',
  'gh pr -R o/r checkout 12',
  'gh repo sync',
  'gh pr merge 12 -d',
  'glab mr checkout 12',
  // The cost: git as a word after a program that only prints it.
  'echo git merge feature',
  'echo patch',
]

const WRITES_NO_COMMIT = [
  'git checkout',
  'git checkout -b topic',
  'git switch -c topic',
  'git stash list',
  'git stash show -p',
  'git stash drop',
  'git reset HEAD~1',
  'git reset --soft HEAD~1',
  'git restore --staged .',
  'git read-tree HEAD',
  'git submodule status',
  'git bisect log',
  'git sparse-checkout list',
  'git fetch origin',
  'git diff feature',
  'git log --merges',
  'git branch -d topic',
  'git reset --mi HEAD~1',
  'git restore -S .',
  'git read-tree -m FETCH_HEAD',
  'git checkout --detach',
  'git apply --stat fix.diff',
  'grep -rn "git merge" docs',
  'gh pr view 12',
  'gh pr merge 12',
  'glab mr list',
]

describe.each(DOORS)('a git command run as %s', (_door, touchOf) => {
  it.each(WRITES_A_COMMIT)('needs the person when it writes a commit’s files: %s', (line) => {
    expect(personOnlyReason(touchOf(line))).toMatchObject({ class: 'unread-command' })
  })

  it.each(WRITES_NO_COMMIT)('is judged by its words when it writes none: %s', (line) => {
    expect(personOnlyReason(touchOf(line))).toBeNull()
  })
})
