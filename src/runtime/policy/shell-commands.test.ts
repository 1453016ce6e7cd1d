import { describe, expect, it } from 'vitest'
import { quoteArgument } from '../../contracts/shell-quoting.ts'
import { commandFinding, readCommandLines } from './shell-commands.ts'

/** What the rule finds in one command line and the scripts it hands a shell. */
const findingOf = (line: string) => commandFinding(readCommandLines([line]))

describe('commandFinding', () => {
  it.each([
    ['git-settings', 'git config core.hooksPath x', 'git config'],
    ['git-settings', '/usr/bin/git -C docs config --list', 'git config'],
    ['git-settings', 'git -c core.fsmonitor=x status', 'git -c'],
    ['git-settings', 'git -ccore.pager=x log', 'git -ccore.pager=x'],
    [
      'git-settings',
      'git --config-env=core.hooksPath=H status',
      'git --config-env=core.hooksPath=H',
    ],
    ['git-settings', 'git --exec-path=/tmp/e status', 'git --exec-path=/tmp/e'],
    ['git-settings', 'git init --template=/tmp/t', 'git init --template=/tmp/t'],
    ['git-settings', 'git clone -c core.hooksPath=h src sub', 'git clone -c'],
    ['git-settings', 'GIT_CONFIG_GLOBAL=/tmp/c git status', 'GIT_CONFIG_GLOBAL=/tmp/c'],
    ['git-settings', 'GIT_TEMPLATE_DIR=/tmp/t git init', 'GIT_TEMPLATE_DIR=/tmp/t'],
    ['git-settings', 'ls ; git config x y', 'git config'],
    ['git-settings', 'echo hi\ngit config x y', 'git config'],
    ['git-settings', "bash -lc 'git config x y'", 'git config'],
    ['git-settings', 'sudo -u me env A=1 git config x y', 'git config'],
    ['git-settings', 'timeout 10 git config x y', 'git config'],
    ['git-settings', 'nice -n 5 git config x y', 'git config'],
    ['git-settings', '>/dev/null git config x y', 'git config'],
    ['git-settings', 'find . -exec git config x y ;', 'git config'],
    ['built-at-run-time', 'eval "$SCRIPT"', 'eval'],
    ['built-at-run-time', '\\eval x', 'eval'],
    ['built-at-run-time', "'eval' x", 'eval'],
    ['built-at-run-time', 'ev""al x', 'eval'],
    ['built-at-run-time', 'G=git; $G config x', '$G'],
    ['built-at-run-time', 'cp x $(id)', '$('],
    // A shell's script: the first operand once its options are read.
    ['git-settings', "bash -c -- 'git config x y'", 'git config'],
    ['git-settings', "bash -c - 'git config x y'", 'git config'],
    ['git-settings', "bash -c -e 'git config x y'", 'git config'],
    ['git-settings', "sh -e -c 'git config x y'", 'git config'],
    ['git-settings', "bash -xc 'git config x y'", 'git config'],
    ['git-settings', "sh -ec 'git config x y'", 'git config'],
    ['git-settings', "bash +c 'git config x y'", 'git config'],
    ['git-settings', "bash -c -o pipefail 'git config x y'", 'git config'],
    ['git-settings', "bash -co pipefail 'git config x y'", 'git config'],
    ['git-settings', "bash -O checkwinsize -c 'git config x y'", 'git config'],
    ['git-settings', "bash --rcfile r -c 'git config x y'", 'git config'],
    ['git-settings', "ksh -c -R db 'git config x y'", 'git config'],
    ['git-settings', "zsh -c -b '-x; git config x y'", 'git config'],
    ['git-settings', "dash -c -- 'git config x y'", 'git config'],
    ['git-settings', "busybox sh -c -- 'git config x y'", 'git config'],
    ['git-settings', 'busybox env git config x y', 'git config'],
    ['git-settings', "fish -c 'git config x y'", 'git config'],
    ['git-settings', "fish --init-command='git config x y'", 'git config'],
    ['git-settings', "fish -c 'echo \\' ; git config x y #'", 'git config'],
    ['git-settings', 'true; and git config x y', 'git config'],
    ['built-at-run-time', "fish -c 'cp x (echo .git)/config'", '('],
    ['git-settings', "tcsh -fc 'git config x y'", 'git config'],
    ['git-settings', "su me -c 'git config x y'", 'git config'],
    ['git-settings', "script -qc 'git config x y' /dev/null", 'git config'],
    ['git-settings', "flock /tmp/l -c 'git config x y'", 'git config'],
    // env's split string, as env splits it.
    ['git-settings', "env -S 'git config x y'", 'git config'],
    ['git-settings', "env -S'git config x y'", 'git config'],
    ['git-settings', "env -iS 'git config x y'", 'git config'],
    ['git-settings', "env --split-string='git config x y'", 'git config'],
    ['git-settings', "env --split 'git config x y'", 'git config'],
    ['git-settings', 'env -S \'-S "git\\_config x y"\'', 'git config'],
    ['built-at-run-time', "env -S 'cp x ${D}/config'", 'cp x ${D}/config'],
    ['unread-command', 'env --frob -S x', 'env --frob'],
    // git's dashed programs are git's commands.
    ['git-settings', '/usr/lib/git-core/git-config core.hooksPath h', 'git config'],
    ['git-settings', 'git-init --template=/tmp/t', 'git init --template=/tmp/t'],
    ['git-settings', 'xargs git-config', 'git config'],
    [
      'built-at-run-time',
      'timeout 5 /usr/lib/git-core/git-conf?g x y',
      '/usr/lib/git-core/git-conf?g',
    ],
    // Wrappers that run the rest of their words.
    ...(
      [
        'setpriv --reuid=1 git config x y',
        'prlimit --nofile=64 git config x y',
        'taskset 1 git config x y',
        'taskset -c 0 git config x y',
        'chrt -f 10 git config x y',
        'unshare -r git config x y',
        'fakeroot git config x y',
        'strace -o /dev/null git config x y',
        'ltrace -e x git config x y',
        'watch -x git config x y',
        'flock /tmp/l git config x y',
        'firejail --quiet git config x y',
        'systemd-run --user git config x y',
        'ionice -c3 git config x y',
        'stdbuf -oL git config x y',
        'nohup git config x y',
        'doas git config x y',
        'chroot / git config x y',
        'noglob git config x y',
        'runuser -u me -- git config x y',
      ] as const
    ).map((line) => ['git-settings', line, 'git config'] as const),
    ['git-settings', "watch -n 5 'git config x y'", 'git config'],
    ['git-settings', "watch -d=permanent -tn1 'git config x y'", 'git config'],
    ['unread-command', "watch --frob 'ls'", 'watch --frob'],
    ['unread-command', "watch -k 5 'ls'", 'watch -k'],
    // What git runs that it is given as an argument.
    ['git-settings', "git submodule foreach 'git config x y'", 'git config'],
    ['git-settings', "git submodule --quiet foreach --recursive 'git config x y'", 'git config'],
    ['unread-command', 'git submodule foreach git pull', 'git submodule foreach'],
    ['unread-command', "git filter-branch --tree-filter 'rm -f x' HEAD", 'git filter-branch'],
    ['git-settings', "git rebase -x 'git config x y' HEAD~1", 'git config'],
    ['git-settings', "git rebase -ix 'git config x y' HEAD~1", 'git config'],
    ['git-settings', "git rebase --exec='git config x y' HEAD~1", 'git config'],
    ['git-settings', "git -C d rebase --exe 'git config x y' HEAD~1", 'git config'],
    ['git-settings', "git-rebase -x 'git config x y' HEAD~1", 'git config'],
    ['git-settings', 'git bisect run git config x y', 'git config'],
    ['git-settings', "git fetch --upload-pack='git config x y;git-upload-pack' .", 'git config'],
    ['git-settings', "git pull --upload-pack 'git config x y' .", 'git config'],
    ['git-settings', "git clone -u 'git config x y' src dst", 'git config'],
    ['git-settings', "git ls-remote --upload='git config x y' .", 'git config'],
    ['git-settings', "git push --receive-pack='git config x y' .", 'git config'],
    ['git-settings', "git archive --remote=. --exec='git config x y' HEAD", 'git config'],
    ['git-settings', "git difftool -x 'git config x y'", 'git config'],
    ['git-settings', "git difftool --extcmd='git config x y'", 'git config'],
    ['git-settings', "GIT_SSH_COMMAND='git config x y' git fetch", 'git config'],
    ['built-at-run-time', "git rebase -x 'cp x $(id)' HEAD~1", '$('],
  ] as const)('finds %s in %s: %s', (kind, line, what) => {
    expect(findingOf(line)).toEqual({ kind, what })
  })

  it.each([
    'git commit -c HEAD',
    'git grep -c config',
    'git log config',
    'git status',
    'echo git config',
    'grep -c "git config" docs',
    'rg -n GIT_CONFIG src',
    'rg -n eval src',
    'npm run eval',
    "rg -n 'TODO$' src",
    'bash -lc "rg -n foo src"',
    "sed -n '1,200p' README.md",
    "bash -c 'ls'",
    "bash -c -- 'ls -l'",
    "sh -e -c 'make test'",
    'bash script.sh -c "git config x y"',
    "env -S 'ls -l'",
    'env -i PATH=/bin ls',
    'nice make',
    'nice -n 5 make',
    'taskset 1 make',
    "watch -n 5 'git status'",
    "fish -c 'git status'",
    'git rebase -i HEAD~3',
    "git rebase -x 'npm test' HEAD~3",
    'git bisect run npm test',
    'git fetch origin',
    'git push origin main',
    'git-upload-pack .',
    'GIT_EDITOR=true git commit',
  ])('finds nothing in %s', (line) => {
    expect(findingOf(line)).toBeNull()
  })

  it('reads lines handed on four times within the first, and needs the person for one deeper', () => {
    const nested = (depth: number, inner: string): string =>
      depth === 0 ? inner : `bash -c ${quoteArgument(nested(depth - 1, inner))}`
    expect(findingOf(nested(4, 'git config x y'))).toEqual({
      kind: 'git-settings',
      what: 'git config',
    })
    expect(findingOf(nested(4, 'ls'))).toBeNull()
    expect(findingOf(nested(5, 'ls'))).toEqual({ kind: 'unread-command', what: 'bash -c ls' })
  })
})
