import { execFileSync } from 'node:child_process'

/**
 * Runs real git in `cwd` as the person would, but alone: no system or
 * personal config of the machine running the tests, no repository found
 * above `ceiling`, and an author for commits. Returns what it printed.
 */
export function realGit(ceiling: string, cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_CEILING_DIRECTORIES: ceiling,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@example.com',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@example.com',
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString()
}
