import type { ApprovalPolicy, ToolEffect } from '../../contracts/policy-axes.ts'

/** What the approval policy says about one tool call before the sandbox and
 *  the agent's ceilings are checked: run it, ask for a decision (the person,
 *  or the automatic reviewer under approve-for-me), or refuse it. */
export type CallDisposition = 'run' | 'ask' | 'deny'

export interface DispositionPair {
  /** The call as declared: not destructive. */
  plain: CallDisposition
  /** The same effect when the tool says this call is destructive. */
  destructive: CallDisposition
}

/**
 * The approval-policy table, as data so docs/policy-and-modes.md can print
 * it (docs-policy-table.test.ts checks that it does).
 *
 * `destructive` never turns `run` into `ask` for writes, commands or network
 * calls: those already ask under every policy that asks. It matters in one
 * place: a destructive read is a contradiction (a tool that reads cannot
 * destroy), so it is treated as the write it claims to be: it asks where a
 * write asks, is refused under `never` and runs under `auto`. That keeps a
 * mislabelled tool from slipping through on its "read" label.
 *
 * - `always`: everything asks.
 * - `on-request` and legacy `suggest`: reads run; the rest asks.
 * - `untrusted`: as `on-request`, but "always allow" grants are not honoured
 *   (see `grantsHonoured`).
 * - `never`: never asks; whatever would need a person is refused.
 * - `auto`: everything runs, destructive calls included. Auto is full access:
 *   the sandbox mode and the agent's ceilings still apply after this table.
 */
export const APPROVAL_POLICY_TABLE: Readonly<
  Record<ApprovalPolicy, Readonly<Record<ToolEffect, Readonly<DispositionPair>>>>
> = deepFreeze({
  always: {
    read: { plain: 'ask', destructive: 'ask' },
    write: { plain: 'ask', destructive: 'ask' },
    execute: { plain: 'ask', destructive: 'ask' },
    network: { plain: 'ask', destructive: 'ask' },
  },
  'on-request': {
    read: { plain: 'run', destructive: 'ask' },
    write: { plain: 'ask', destructive: 'ask' },
    execute: { plain: 'ask', destructive: 'ask' },
    network: { plain: 'ask', destructive: 'ask' },
  },
  untrusted: {
    read: { plain: 'run', destructive: 'ask' },
    write: { plain: 'ask', destructive: 'ask' },
    execute: { plain: 'ask', destructive: 'ask' },
    network: { plain: 'ask', destructive: 'ask' },
  },
  suggest: {
    read: { plain: 'run', destructive: 'ask' },
    write: { plain: 'ask', destructive: 'ask' },
    execute: { plain: 'ask', destructive: 'ask' },
    network: { plain: 'ask', destructive: 'ask' },
  },
  never: {
    read: { plain: 'run', destructive: 'deny' },
    write: { plain: 'deny', destructive: 'deny' },
    execute: { plain: 'deny', destructive: 'deny' },
    network: { plain: 'deny', destructive: 'deny' },
  },
  auto: {
    read: { plain: 'run', destructive: 'run' },
    write: { plain: 'run', destructive: 'run' },
    execute: { plain: 'run', destructive: 'run' },
    network: { plain: 'run', destructive: 'run' },
  },
})

/** Looks the call up in `APPROVAL_POLICY_TABLE`. `destructive` is required so
 *  every caller states it, even where the table gives the same answer. */
export function dispositionFor(
  approvalPolicy: ApprovalPolicy,
  effect: ToolEffect,
  destructive: boolean,
): CallDisposition {
  const pair = APPROVAL_POLICY_TABLE[approvalPolicy][effect]
  return destructive ? pair.destructive : pair.plain
}

/**
 * What each policy does with a private read (read-reach.ts): a read outside
 * the room's workspace, of a credential, shell start-up file or git hook,
 * or of a file with several names. It asks wherever a write asks (the
 * policies behind ask-for-approval and approve-for-me included), is refused
 * under `never`, and runs under `auto`: full access reads freely.
 */
export const PRIVATE_READ_TABLE: Readonly<Record<ApprovalPolicy, CallDisposition>> = Object.freeze({
  always: 'ask',
  'on-request': 'ask',
  untrusted: 'ask',
  suggest: 'ask',
  never: 'deny',
  auto: 'run',
})

/** Looks a private read up in `PRIVATE_READ_TABLE`. */
export function privateReadDisposition(approvalPolicy: ApprovalPolicy): CallDisposition {
  return PRIVATE_READ_TABLE[approvalPolicy]
}

/** Whether an earlier "always allow" may answer a new call without asking.
 *  `untrusted` distrusts standing grants by definition, and `always` means
 *  every call is asked, so neither honours them. Nor does `never` (plan
 *  mode): a grant stands in for the person's answer to a question, and
 *  under a policy that asks nothing whatever would need the person is
 *  refused; a grant made before the room was narrowed to it must not
 *  reopen what the narrowing closed, at a door that does not know the
 *  policy's table (the MCP gateway) any more than at one that does. */
export function grantsHonoured(approvalPolicy: ApprovalPolicy): boolean {
  return (
    approvalPolicy === 'on-request' || approvalPolicy === 'suggest' || approvalPolicy === 'auto'
  )
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) {
    if (typeof inner === 'object' && inner !== null) deepFreeze(inner as object)
  }
  return Object.freeze(value)
}
