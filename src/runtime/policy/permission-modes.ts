import type { PermissionMode, RoomPolicy } from '../../contracts/policy-axes.ts'

/** The three product modes are exact presets over the three axes
 *  (docs/architecture.md §4). Frozen so no caller can widen a preset in place. */
export const MODE_PRESETS: Readonly<Record<PermissionMode, RoomPolicy>> = Object.freeze({
  'ask-for-approval': Object.freeze({
    approvalPolicy: 'on-request',
    sandboxMode: 'workspace-write',
    approvalReviewer: 'user',
  }),
  'approve-for-me': Object.freeze({
    approvalPolicy: 'on-request',
    sandboxMode: 'workspace-write',
    approvalReviewer: 'agent',
  }),
  'full-access': Object.freeze({
    approvalPolicy: 'auto',
    sandboxMode: 'danger-full-access',
    approvalReviewer: 'user',
  }),
})

const MODES_IN_ORDER: readonly PermissionMode[] = [
  'ask-for-approval',
  'approve-for-me',
  'full-access',
]

/** Whether moving from `from` to `to` lets the agent go as far or further
 *  without asking: confirming the same mode counts, since that is how a
 *  tampered or rolled-back room gets its reach back. */
export function reachesAsFar(from: PermissionMode, to: PermissionMode): boolean {
  return MODES_IN_ORDER.indexOf(to) >= MODES_IN_ORDER.indexOf(from)
}

/** A fresh, mutable copy of the preset, so a caller that edits its room
 *  policy never edits the preset every other room reads. */
export function policyForMode(mode: PermissionMode): RoomPolicy {
  return { ...MODE_PRESETS[mode] }
}

/** Projects a stored policy onto the mode picker. Only an exact match of all
 *  three axes names a mode; anything else (a legacy value, a hand-edited row,
 *  a mix of axes) is shown as `ask-for-approval`, the narrowest mode, reviewed
 *  by the user. The projection is display only: it is never written back to
 *  the room unless the person chose that mode in the protected window. */
export function modeFromPolicy(policy: RoomPolicy): PermissionMode {
  for (const mode of MODES_IN_ORDER) {
    const preset = MODE_PRESETS[mode]
    if (
      policy.approvalPolicy === preset.approvalPolicy &&
      policy.sandboxMode === preset.sandboxMode &&
      policy.approvalReviewer === preset.approvalReviewer
    ) {
      return mode
    }
  }
  return 'ask-for-approval'
}
