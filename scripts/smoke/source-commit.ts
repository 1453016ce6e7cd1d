import { spawnSync } from 'node:child_process'

/** The commit a run was made from, as report.json records it. */
export interface SourceCommit {
  /** `git rev-parse HEAD`: 40 hex digits. */
  commit: string
  /** Whether tracked files differed from that commit when the run started:
   *  the evidence then shows code that no commit holds. */
  uncommittedChanges: boolean
}

function git(root: string, args: string[]): string {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8' })
  if (result.status !== 0) {
    throw new Error(
      `git ${args.join(' ')} failed in ${root} (${result.error?.message ?? result.stderr.trim()}): ` +
        'smoke evidence names the commit it was made from, so it is made and verified in a git checkout',
    )
  }
  return result.stdout.trim()
}

/** The checkout's commit in `root`; throws where there is no git checkout. */
export function sourceCommit(root: string): SourceCommit {
  return {
    commit: git(root, ['rev-parse', 'HEAD']),
    uncommittedChanges: git(root, ['status', '--porcelain', '--untracked-files=no']) !== '',
  }
}
