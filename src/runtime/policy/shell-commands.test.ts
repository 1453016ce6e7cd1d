import { describe, expect, it } from 'vitest'
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
  ])('finds nothing in %s', (line) => {
    expect(findingOf(line)).toBeNull()
  })
})
