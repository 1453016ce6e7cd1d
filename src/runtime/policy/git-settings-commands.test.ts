import { describe, expect, it } from 'vitest'
import { gitSettingsWrittenBy } from './git-settings-commands.ts'

describe('gitSettingsWrittenBy', () => {
  it.each([
    ['remote', ['set-url', 'origin', 'https://example.com/x'], 'remote set-url'],
    ['remote', ['-v', 'add', 'up', 'u'], 'remote add'],
    ['submodule', ['set-url', 'lib', 'https://example.com/x'], 'submodule set-url'],
    ['lfs', ['install', '--local'], 'lfs install'],
    ['maintenance', ['start'], 'maintenance start'],
    ['push', ['-fu', 'up', 'main'], 'push -fu'],
    ['push', ['--set-upstream', 'up', 'main'], 'push --set-upstream'],
    ['branch', ['--set-upstream-to=up/main'], 'branch --set-upstream-to=up/main'],
    ['checkout', ['-b', 'x', '--track', 'up/x'], 'checkout --track'],
    ['switch', ['-c', 'x', '-t', 'up/x'], 'switch -t'],
    // Any start of a long option git takes, and short ones bundled.
    ['push', ['--set-up', 'up', 'x'], 'push --set-up'],
    ['push', ['-qu', 'up', 'x'], 'push -qu'],
    ['branch', ['--set-u=up/x'], 'branch --set-u=up/x'],
    ['branch', ['--uns'], 'branch --uns'],
    ['branch', ['--tr', 'x', 'up/x'], 'branch --tr'],
    ['checkout', ['-bx', '--tra', 'up/x'], 'checkout --tra'],
    ['pull', ['--set-ups', 'up', 'x'], 'pull --set-ups'],
    ['fetch', ['--set-upstream', 'up', 'x'], 'fetch --set-upstream'],
  ])('git %s %j writes git’s settings', (command, rest, found) => {
    expect(gitSettingsWrittenBy(command, rest)).toBe(found)
  })

  it.each([
    ['remote', ['-v']],
    ['remote', ['get-url', 'origin']],
    ['submodule', ['status']],
    ['submodule', ['update', '--init']],
    ['submodule', ['sync']],
    ['lfs', ['track', '*.bin']],
    ['maintenance', ['run']],
    ['push', ['--tags', 'origin']],
    ['branch', ['-a', '--contains', 'x']],
    ['checkout', ['--theirs', '--', 'x']],
    ['switch', ['--detach', 'x']],
    ['status', ['-u']],
    ['branch', ['--sort=-committerdate']],
    ['push', ['--no-verify', 'origin']],
    ['fetch', ['--all']],
    ['constructor', ['x']],
  ])('git %s %j writes none', (command, rest) => {
    expect(gitSettingsWrittenBy(command, rest)).toBeNull()
  })
})
