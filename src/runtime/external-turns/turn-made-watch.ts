import { lstatSync, readdirSync } from 'node:fs'
import path from 'node:path'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import { startsContained } from '../external-agents/agent-mode-mapping.ts'
import { MadePersonOnlyWatch, personOnlyAtStart } from '../policy/made-person-only.ts'
import { personOnlyReason } from '../policy/person-only.ts'
import { madePersonOnlyNote } from '../tools/sandbox-stop-note.ts'

/**
 * A watch over the workspace for the whole of one external agent's turn:
 * what of the person-only table appears there while it runs is moved
 * aside (policy/made-person-only.ts), every second and once more when the
 * turn has ended, as for a command of Assent's.
 *
 * The watch of each call Assent allowed (`ExternalTurnTimeline.watchMade`)
 * ends when the agent says the call ended, and covers nothing the agent
 * does without asking: its own file tools, a command its own sandbox runs
 * unasked, or a process an allowed command left running, which may make a
 * repository whose config names a program (`sub/.git`) or an `.envrc`
 * once that call's watch has stopped. The containment keeps read-only
 * only what existed when the agent started. Whatever door the agent's
 * process used, no allow covers that, so the turn is watched too.
 *
 * A file change allowed in the turn to a path that needs a person
 * (`allowedWrites`, filled as each is, `shownPersonOnly`) was shown by
 * that path to whoever allowed it: what it writes there, and a folder made
 * to hold it (`.github/workflows` for a workflow), is left. What else the
 * agent makes inside such a folder is not told apart. An empty folder is
 * left too (`isEmptyFolder`), until something is put in it.
 *
 * Outside full access only, as Assent's own commands: in full access the
 * person let the agent do everything unasked, and nothing is walked.
 * Null there.
 */
export function watchTurn(
  mode: PermissionMode,
  workspace: string,
  allowedWrites: readonly string[],
): MadePersonOnlyWatch | null {
  if (!startsContained(mode)) return null
  const start = personOnlyAtStart([workspace])
  return new MadePersonOnlyWatch({
    ...start,
    // An empty folder there at the start counts as none: filled later, it
    // is what the turn made.
    existing: new Map([...start.existing].filter(([found]) => !isEmptyFolder(found))),
    leaves: (found) =>
      isEmptyFolder(found) ||
      allowedWrites.some((each) => each === found || each.startsWith(found + path.sep)),
  })
}

/**
 * Whether `found` is a folder with nothing in it, as far as can be read:
 * nothing in it runs (an empty `.git` is no repository, an empty hooks or
 * workflows folder holds no hook or workflow). The agent's own sandbox
 * makes such folders in the workspace and removes them again, as places to
 * mount over (Codex's, for what it protects: seen as `.git` and `.aws` at
 * the top of a workspace holding `.github`), so moving them aside would
 * only say the agent made what it did not write. One that cannot be read
 * is not known empty, and is moved aside.
 */
function isEmptyFolder(found: string): boolean {
  try {
    return lstatSync(found).isDirectory() && readdirSync(found).length === 0
  } catch {
    return false
  }
}

/** Ends the turn's watch with a last walk: the room's note saying what
 *  was moved aside, or that the workspace was too large to check whole
 *  (the same words as after a command), or null when neither. */
export function madeDuringTurn(watch: MadePersonOnlyWatch | null): RuntimeMessage | null {
  if (watch === null) return null
  const note = madePersonOnlyNote(watch.stop())
  return note === null ? null : message('external.madePersonOnly', { detail: note })
}

/**
 * Of a file change's real paths, those the rule says need a person: only
 * those were shown as such, and only a place they name is left by the
 * turn's watch. A path that is not one (`mirror/notes.txt`) would else
 * leave whatever the agent makes around it unasked (`mirror` made a bare
 * repository beside the note).
 */
export function shownPersonOnly(paths: readonly string[], workspace: string): string[] {
  return paths.filter(
    (real) =>
      personOnlyReason({ toolName: 'write_file', arguments: { path: real }, workspace }) !== null,
  )
}
