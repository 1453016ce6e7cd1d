import type { PermissionMode, RoomPolicy, ToolEffect } from '../../contracts/policy-axes.ts'
import { dispositionFor } from './approval-policy.ts'

/** The product modes are exact presets over the three axes
 *  (docs/architecture.md §4). Frozen so no caller can widen a preset in place.
 *
 *  `plan` is `never` over a `read-only` sandbox: nothing asks anyone (what
 *  would ask is refused, and is not even offered to the agent), nothing is
 *  written and no command runs. It is narrower than every other mode on
 *  every axis, which is why entering it needs no consent. */
export const MODE_PRESETS: Readonly<Record<PermissionMode, RoomPolicy>> = Object.freeze({
  plan: Object.freeze({
    approvalPolicy: 'never',
    sandboxMode: 'read-only',
    approvalReviewer: 'user',
  }),
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
  'plan',
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

/** The narrower of a turn's frozen policy and its room's policy now, by
 *  mode (plan narrowest): a narrowing reaches a running turn, a widening
 *  never does. A tie keeps the frozen policy, so a room confirmed again at
 *  the same mode gives a running turn nothing it was not admitted with. */
export function narrowerPolicy(frozen: RoomPolicy, now: RoomPolicy): RoomPolicy {
  const nowRank = MODES_IN_ORDER.indexOf(modeFromPolicy(now))
  return nowRank < MODES_IN_ORDER.indexOf(modeFromPolicy(frozen)) ? now : frozen
}

/** A fresh, mutable copy of the preset, so a caller that edits its room
 *  policy never edits the preset every other room reads. */
export function policyForMode(mode: PermissionMode): RoomPolicy {
  return { ...MODE_PRESETS[mode] }
}

/** Projects a stored policy onto the mode picker. Only an exact match of all
 *  three axes names a mode; anything else (a legacy value, a hand-edited row,
 *  a mix of axes) is shown as `ask-for-approval`, reviewed by the user: the
 *  narrowest a room's stored policy is ever read as (plan, narrower still, is
 *  only ever the person's choice). The projection is display only: it is never written back to
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

/** Whether a turn (or a room) runs in plan mode: its policy is exactly the
 *  plan preset. Anything else, even a mix that also never asks, is not
 *  plan mode and gets none of its promises. */
export function isPlanPolicy(policy: RoomPolicy): boolean {
  return modeFromPolicy(policy) === 'plan'
}

/** Whether a call with this effect, not destructive, runs under the policy
 *  with nobody asked and the sandbox not refusing it outright. Plan mode
 *  offers the agent only the tools for which this holds, so planning never
 *  interrupts the person. */
export function runsWithoutConsent(policy: RoomPolicy, effect: ToolEffect): boolean {
  if (policy.sandboxMode === 'read-only' && effect !== 'read') return false
  return dispositionFor(policy.approvalPolicy, effect, false) === 'run'
}
