import type { AcpSessionModes, ExternalAgentConfig } from '../../contracts/agents-config.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'

/** What Codex's app-server is told in `thread/start` for a room mode. */
export interface CodexThreadSettings {
  approvalPolicy: 'untrusted' | 'on-request' | 'never'
  sandbox: 'read-only' | 'workspace-write' | 'danger-full-access'
  /** Always `user`: Codex's own automatic reviewer never answers in
   *  Assent's place; every request reaches Assent. */
  approvalsReviewer: 'user'
}

/**
 * The room mode → Codex settings table (docs/agents-external.md prints it).
 *
 * - Asking modes use `untrusted`, not `on-request`: under `on-request` Codex
 *   runs ordinary commands inside its sandbox without asking, so a command
 *   could write to the workspace with nobody asked. Under `untrusted` Codex
 *   asks for every command it does not consider known-safe (with Codex
 *   0.169 that was every command tried, `ls` included) and for every file
 *   change. The sandbox is the room's own, `workspace-write`: it holds only
 *   what Codex runs without asking (known-safe, read-only commands). A
 *   `read-only` sandbox would be no safer for those, and Codex applies an
 *   allowed file change inside the thread's sandbox, where read-only cannot
 *   create the folders a new file needs.
 * - Once allowed, a command may run outside Codex's sandbox (observed with
 *   0.169: the same allowed write outside the workspace succeeded in some
 *   runs and was stopped in others), which is why the adapter reports every
 *   request as `danger-full-access`.
 * - Approve-for-me tells Codex the same: the difference is who answers on
 *   Assent's side (its reviewer, escalating to the person).
 * - Full access is Codex's `never` with no sandbox: it asks for nothing, as
 *   Assent's `auto` policy runs everything.
 * - Plan keeps Codex asking (`untrusted`) in a `read-only` sandbox: what it
 *   runs unasked can change nothing, and every request it makes reaches
 *   Assent, whose plan policy (`never`) refuses it without asking anyone.
 *   Codex's own `never` would leave its sandbox the only barrier.
 */
export const CODEX_THREAD_SETTINGS: Readonly<Record<PermissionMode, CodexThreadSettings>> =
  Object.freeze({
    plan: Object.freeze({
      approvalPolicy: 'untrusted',
      sandbox: 'read-only',
      approvalsReviewer: 'user',
    }),
    'ask-for-approval': Object.freeze({
      approvalPolicy: 'untrusted',
      sandbox: 'workspace-write',
      approvalsReviewer: 'user',
    }),
    'approve-for-me': Object.freeze({
      approvalPolicy: 'untrusted',
      sandbox: 'workspace-write',
      approvalsReviewer: 'user',
    }),
    'full-access': Object.freeze({
      approvalPolicy: 'never',
      sandbox: 'danger-full-access',
      approvalsReviewer: 'user',
    }),
  })

/** How `thread/start`'s answer spells each sandbox mode (its `sandbox.type`),
 *  so the client can check that Codex took the one it was told. */
export const CODEX_SANDBOX_POLICY_TYPES: Readonly<Record<CodexThreadSettings['sandbox'], string>> =
  Object.freeze({
    'read-only': 'readOnly',
    'workspace-write': 'workspaceWrite',
    'danger-full-access': 'dangerFullAccess',
  })

/**
 * ACP session modes for agents whose modes were checked against the room
 * modes; an agents.json entry names its own (`session_modes`), and these are
 * what the docs suggest.
 *
 * codex-acp 0.16 offers `read-only`, `auto` and `full-access`. Only
 * `read-only` keeps every write behind a request: in `auto` it runs commands
 * that write inside the workspace without asking. In `read-only` a command
 * runs in a read-only sandbox (a write fails, nobody is asked); a file change
 * and a command that asks to leave the sandbox both ask the client.
 */
export const KNOWN_ACP_SESSION_MODES = Object.freeze({
  'codex-acp': Object.freeze({
    plan: 'read-only',
    'ask-for-approval': 'read-only',
    'approve-for-me': 'read-only',
    'full-access': 'full-access',
  }),
  /**
   * claude-agent-acp 0.23 offers `default`, `acceptEdits`, `plan` and
   * `dontAsk` (no bypass mode when run as root). `default` asks before every
   * file change and every command it does not consider read-only (`ls` ran
   * unasked). `acceptEdits` is never used: it wrote a file and ran a command
   * that writes (`echo ran > ran.txt`) without asking. `dontAsk` refuses every
   * such request itself, without asking anyone, so a room in it could do
   * nothing. Full access keeps `default` too: every request still reaches
   * Assent, whose full-access policy allows it without asking and audits it,
   * where `acceptEdits` would leave the writes out of the audit log. Plan uses
   * the agent's own `plan`, in which it still asks before acting, and Assent's
   * plan policy refuses what it asks.
   */
  'claude-agent-acp': Object.freeze({
    plan: 'plan',
    'ask-for-approval': 'default',
    'approve-for-me': 'default',
    'full-access': 'default',
  }),
}) satisfies Readonly<Record<string, Readonly<AcpSessionModes>>>

/**
 * Whether the agent's process is started inside Assent's sandbox under
 * `mode` (sandbox/agent-containment.ts): under every mode but full access,
 * where the person let it do everything.
 */
export function startsContained(mode: PermissionMode): boolean {
  return mode !== 'full-access'
}

/**
 * Whether the agent is started with the same settings under both room
 * modes (Codex's `thread/start` settings, an ACP agent's session mode, the
 * room's `ask-for-approval` one where the entry names none, as the client
 * falls back) and alike contained (`startsContained`). A session started
 * under one mode then lets the agent do nothing unasked that it would not
 * under the other.
 */
export function agentToldAlike(
  agent: ExternalAgentConfig,
  one: PermissionMode,
  other: PermissionMode,
): boolean {
  // claude-agent-acp keeps its asking mode in full access, but started
  // there it runs outside the sandbox that hides the person's keys.
  if (startsContained(one) !== startsContained(other)) return false
  if (agent.protocol === 'codex-app-server') {
    const a = CODEX_THREAD_SETTINGS[one]
    const b = CODEX_THREAD_SETTINGS[other]
    return (
      a.approvalPolicy === b.approvalPolicy &&
      a.sandbox === b.sandbox &&
      a.approvalsReviewer === b.approvalsReviewer
    )
  }
  const modes = agent.session_modes
  return (modes[one] ?? modes['ask-for-approval']) === (modes[other] ?? modes['ask-for-approval'])
}
