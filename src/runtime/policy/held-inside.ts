import { lstatSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { AGENT_FILE_CHANGE_TOOL } from '../../contracts/agent-request.ts'
import type { PersonOnly } from './person-only.ts'
import { personOnlyPathsInRoots, READ_ONLY_WALK_ENTRIES } from './read-only-walk.ts'
import { sensitivePath } from './sensitive-paths.ts'
import { programsRun, type ProgramRun } from './programs-run.ts'
import { isGitProgram } from './git-hand-offs.ts'
import { longOf } from './option-words.ts'

/**
 * Actions that take a whole folder away with what it holds: Assent's own
 * delete (`delete -r vendor`) and an external agent's file change (a
 * delete or a move of a folder). Their one named path is no path of the
 * table, so without a look inside, a door that decides without the
 * person (a delete grant, the reviewer, the webhook) would remove a nested
 * repository's git folder (its hooks, config and history no remote holds),
 * a CI workflow or a key with it.
 */
const TAKES_FOLDERS = new Set(['delete_file', AGENT_FILE_CHANGE_TOOL])

/** Programs that take away what they name: a command that runs one
 *  (`rm -rf vendor`, `mv .github old`, `find sub -delete`) has every
 *  folder it names looked into, as a delete has. */
const REMOVING_PROGRAMS = new Set(['rm', 'rmdir', 'unlink', 'mv', 'shred', 'trash', 'trash-put'])

/**
 * The words a command line (as read, hand-offs included) gives a program
 * that takes away what it names: the operands after `rm`, `mv`, … where
 * the shell finds its program (shell-commands.ts: after assignments,
 * keywords and wrappers, `{ rm -rf vendor; }`, `timeout 5 rm`, `sudo -u
 * root mv`), `git clean`'s forced twice, and `find`'s starting points
 * when it has `-delete`. Over-reading only ever asks more.
 */
export function removedOperands(readings: readonly { words: readonly string[] }[]): string[] {
  return programsRun(readings, (name) =>
    REMOVING_PROGRAMS.has(name) || isGitProgram(name)
      ? () => true
      : name === 'find'
        ? (rest) => rest.includes('-delete')
        : undefined,
  ).flatMap(operandsOf)
}

/** Programs that change the mode, owner or access list of what they
 *  name, and with `-R` of everything a folder holds: a hook the person
 *  turned off by taking its execute bit away runs again at their next
 *  commit after `chmod -R +x .`, as a written one would. */
const MODE_PROGRAMS = new Set(['chmod', 'chown', 'chgrp', 'setfacl'])

/** The words a command line gives a program that changes the modes of
 *  all a folder holds (`chmod -R`, `chown --recursive`), as
 *  `removedOperands` reads them: a mode or an owner among them names no
 *  folder, and is passed over when looked into. */
export function modeChangedOperands(readings: readonly { words: readonly string[] }[]): string[] {
  return programsRun(readings, (name) =>
    MODE_PROGRAMS.has(name)
      ? (rest) => rest.some((word) => longOf(word, 'recursive') || /^-[A-Za-z]*R/.test(word))
      : undefined,
  ).flatMap(operandsOf)
}

function operandsOf(found: ProgramRun): string[] {
  if (isGitProgram(found.name)) return gitCleanOperands(found.rest)
  if (found.name === 'find') {
    const end = found.rest.findIndex((operand) => /^[-(!]/.test(operand))
    return end === -1 ? found.rest : found.rest.slice(0, end)
  }
  return found.rest.filter((operand) => !operand.startsWith('-'))
}

/**
 * What `git clean` forced twice (`-ff`, `-f -f`, `--force --force`, or
 * any start of `--force` git takes for it, `--fo --f`) takes away:
 * untracked files and folders, and with the second force the untracked
 * repositories nested in them, git folders, hooks and unpushed history
 * with them. Its paths, or the folder it runs in (`.`). Once
 * forced, git leaves a nested repository alone.
 */
function gitCleanOperands(rest: readonly string[]): string[] {
  const clean = rest.indexOf('clean')
  if (clean === -1) return []
  const words = rest.slice(clean + 1)
  let forced = 0
  for (const word of words) {
    if (longOf(word, 'force')) forced += 1
    else if (/^-[A-Za-z]+$/.test(word))
      forced += [...word].filter((letter) => letter === 'f').length
  }
  if (forced < 2) return []
  const operands = words.filter((word) => !word.startsWith('-'))
  return operands.length === 0 ? ['.'] : operands
}

/**
 * The first path only a person may change inside a folder the action
 * takes away (`TAKES_FOLDERS`), or null: a nested repository's `.git`, a
 * workflow, an `.envrc`, a key; anything the sandbox's walk would keep
 * read-only there (read-only-walk.ts). A folder too large to walk whole,
 * or one holding a folder whose entries cannot be read, is as good as one
 * that holds such a path: what it holds is not known, so the person
 * decides.
 *
 * Looked at: Assent's own delete, external agents' file changes, and a
 * command (Assent's or an external agent's, whose own sandbox may not keep
 * a nested repository read-only) that runs a program taking away what it
 * names (`removedOperands`), or changes the modes of all it holds
 * (`modeChangedOperands`), an MCP shell tool's among them. An MCP tool's
 * named folder, or one a command only reads (`ls vendor`, `make -C sub`),
 * is not walked.
 */
export function heldInside(
  touch: { toolName: string; mcpServerId?: string | undefined; workspace: string },
  resolved: readonly string[],
  command: { readings: readonly { words: readonly string[] }[]; cwd: string } | null = null,
): PersonOnly | null {
  // An MCP tool's own name says nothing of what it does with a folder it
  // is given (a listing takes nothing away); a command line among its
  // arguments (a shell tool's) is read as any other, and runs in no
  // sandbox of Assent's.
  const mcp = touch.mcpServerId !== undefined
  if (mcp && (command === null || command.readings.length === 0)) return null
  const folder = (word: string) =>
    folderOf(path.resolve(touch.workspace, command?.cwd ?? touch.workspace), word)
  const taken =
    TAKES_FOLDERS.has(touch.toolName) && !mcp
      ? resolved
      : command === null
        ? []
        : removedOperands(command.readings).map(folder)
  const changed = command === null ? [] : modeChangedOperands(command.readings).map(folder)
  const what = (candidate: string) =>
    taken.includes(candidate) ? 'which the action takes away' : 'whose modes the action changes'
  for (const candidate of new Set([...taken, ...changed])) {
    if (!isFolder(candidate)) continue
    // What is in it is judged by where it is (`.github` holds
    // `.github/workflows`, `~/.config` holds `.config/autostart`).
    const walked = personOnlyPathsInRoots([candidate], READ_ONLY_WALK_ENTRIES)
    const [found] = walked.paths
    if (found !== undefined) {
      return {
        path: found,
        class: sensitivePath(found)?.class ?? 'git',
        reason: `it is inside ${candidate}, ${what(candidate)}, and only a person may change it`,
      }
    }
    if (walked.truncated !== null) {
      return {
        path: candidate,
        class: 'unwalked',
        reason: `it holds more than ${READ_ONLY_WALK_ENTRIES} entries, more than are checked for git folders and files that run code`,
      }
    }
    const [unlistable] = walked.unlistable
    if (unlistable !== undefined) {
      return {
        path: unlistable,
        class: 'unlistable',
        reason:
          'its entries cannot be read, so what the action takes away with it cannot be checked',
      }
    }
  }
  return null
}

function realOrAsIs(folder: string): string {
  try {
    return realpathSync.native(folder)
  } catch {
    return folder
  }
}

/** Where an operand leads from `cwd`, as a real path: a pattern
 *  (`vendor/*`, `*`) is the folder it lists, whose entries it may all be. */
function folderOf(cwd: string, word: string): string {
  const glob = /[*?[]/.exec(word)
  const named = glob === null ? word : path.dirname(word.slice(0, glob.index) + 'x')
  return realOrAsIs(path.resolve(cwd, named))
}

/** Whether a real folder (not a link to one) is at `candidate` now. */
function isFolder(candidate: string): boolean {
  try {
    return lstatSync(candidate).isDirectory()
  } catch {
    return false
  }
}
