import { z } from 'zod'
import { CommandContainmentSchema } from '../contracts/command-containment.ts'
import { FileChangeSchema } from '../contracts/file-change.ts'
import { SandboxModeSchema } from '../contracts/policy-axes.ts'

export const LanguageSchema = z.enum(['en', 'zh-CN'])
export type Language = z.infer<typeof LanguageSchema>
export const ThemeSchema = z.enum(['light', 'dark'])
export type Theme = z.infer<typeof ThemeSchema>

export const ModeSchema = z.enum(['plan', 'ask-for-approval', 'approve-for-me', 'full-access'])

/** Time the buttons stay disabled after the window is shown and focused, so
 *  a click meant for another window cannot land on "Allow". */
export const BUTTON_ENABLE_DELAY_MS = 600

/** One field of a sensitive form as the protected window draws it: data
 *  only, built by main from the server's `requestedSchema`. */
export const ProtectedFormFieldSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/),
  label: z.string(),
  description: z.string().optional(),
  control: z.enum([
    'text',
    'password',
    'email',
    'url',
    'date',
    'number',
    'switch',
    'choice',
    'multi',
  ]),
  /** Whole numbers only (an `integer` field). */
  integer: z.boolean().optional(),
  required: z.boolean(),
  choices: z.array(z.strictObject({ value: z.string(), label: z.string() })).optional(),
})
export type ProtectedFormField = z.infer<typeof ProtectedFormFieldSchema>

/**
 * The action an approval asks for, in the shape the window draws it: the
 * action comes first, in words a person reads (a command line, a file and
 * its change, a path to delete), built by main from the canonical action's
 * arguments. A tool main does not know is `other`: its full arguments.
 */
export const ConsentActionSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('command'),
    argv: z.array(z.string()).min(1),
    /** Handed to the system shell as one line (`sh -c`), not run directly. */
    shell: z.boolean(),
    /** Where it runs: the working directory, or the `cwd` it names,
     *  resolved against it. */
    directory: z.string(),
    timeoutMs: z.number().int().positive().optional(),
  }),
  z.strictObject({
    type: z.literal('write'),
    /** As the agent named it, and where it resolves. */
    path: z.string(),
    absolutePath: z.string(),
    /** The whole new content: shown when there is no `fileChange`, or when
     *  the change was cut short. */
    content: z.string(),
    fileChange: FileChangeSchema.optional(),
  }),
  z.strictObject({
    type: z.literal('delete'),
    path: z.string(),
    absolutePath: z.string(),
    recursive: z.boolean(),
  }),
  z.strictObject({
    type: z.literal('read'),
    path: z.string(),
    absolutePath: z.string(),
    /** `list_dir` lists a folder; `read_file` reads a file. */
    listing: z.boolean(),
  }),
  z.strictObject({
    type: z.literal('mcp'),
    serverName: z.string(),
    /** What the server says the tool does. */
    toolDescription: z.string(),
    /** The tool's side-effect-free preview, or null if it has none. */
    previewText: z.string().nullable(),
    /** The folder the server works in, where its relative arguments lead;
     *  null when Assent does not start it (over HTTP) or it is built in. */
    serverFolder: z.string().nullable(),
  }),
  z.strictObject({
    type: z.literal('permission'),
    /** Exactly what widens: write access to one more directory, or
     *  network access for one command line in one directory. */
    widen: z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('write-directory'), path: z.string() }),
      z.strictObject({
        type: z.literal('network'),
        argv: z.array(z.string()).min(1),
        directory: z.string(),
      }),
    ]),
    /** For how long: this turn only, never the room's mode. */
    duration: z.literal('turn'),
    /** Why the agent says it needs it: its words, shown as text. */
    reason: z.string(),
  }),
  /** An external agent's command line, exactly as the agent will run it
   *  (Codex: `/bin/bash -lc '…'`), and the folder it runs in: as the agent
   *  wrote it, and the real folder it leads to when a link makes that
   *  another. */
  z.strictObject({
    type: z.literal('agent-command'),
    commandLine: z.string().min(1),
    directory: z.string(),
    realDirectory: z.string().optional(),
  }),
  /** The files an external agent will change: each with its change, its
   *  diff when the runtime could read it, and the agent's own text where
   *  the diff cannot show all of it. */
  z.strictObject({
    type: z.literal('agent-file-changes'),
    changes: z
      .array(
        z.strictObject({
          path: z.string(),
          change: z.enum(['add', 'update', 'delete']),
          movePath: z.string().nullable(),
          /** Where a link makes `path` or `movePath` lead, when elsewhere. */
          realPath: z.string().optional(),
          realMovePath: z.string().optional(),
          fileChange: FileChangeSchema.optional(),
          agentDiff: z.string().nullable(),
        }),
      )
      .min(1),
  }),
  z.strictObject({ type: z.literal('other') }),
])
export type ConsentAction = z.infer<typeof ConsentActionSchema>

/** What "Always allow" would remember, mirroring the runtime's grant scopes
 *  (src/runtime/agent/grant-scope.ts), or why it is not offered. */
export const AlwaysAllowSchema = z.discriminatedUnion('offered', [
  z.strictObject({
    offered: z.literal(true),
    /** `mcp-read` and `mcp-prompt` are assent-gateway's grants on a
     *  server's resource read and prompt: the first answers for every read
     *  of the server, the second for the one prompt named in `prompt`. */
    scope: z.enum(['tool', 'command', 'path', 'mcp-tool', 'mcp-read', 'mcp-prompt', 'agent-file']),
    prompt: z.string().max(4_096).optional(),
  }),
  z.strictObject({
    offered: z.literal(false),
    reason: z.enum([
      'command-has-options',
      'recursive-delete',
      'path-unresolvable',
      'tool-not-grantable',
      'runtime-refuses',
      'turn-only',
      'agent-change-not-grantable',
      'agent-command-uncontained',
    ]),
  }),
])
export type AlwaysAllow = z.infer<typeof AlwaysAllowSchema>

/** Whether "Always allow every tool of <server>" is offered for an MCP
 *  call, and the tools it would remember: the server's whole list, as the
 *  runtime's grant is bound to it (src/runtime/agent/grant-scope.ts). */
export const ServerAlwaysAllowSchema = z.discriminatedUnion('offered', [
  z.strictObject({
    offered: z.literal(true),
    toolNames: z.array(z.string()).min(1).max(256),
  }),
  z.strictObject({ offered: z.literal(false) }),
])
export type ServerAlwaysAllow = z.infer<typeof ServerAlwaysAllowSchema>

/**
 * What main sends the protected window to render: data only, every string is
 * set with `textContent` after `displaySafe`. Built by main from the
 * runtime's canonical action.
 */
export const ConsentViewSchema = z.discriminatedUnion('subject', [
  z.strictObject({
    subject: z.literal('approval'),
    promptId: z.string().min(1).max(128),
    kind: z.enum(['run-command', 'apply-changes', 'mcp-tool-call', 'read', 'permission-request']),
    /** Who asks: the room's agent, in the person's language. */
    agentLabel: z.string(),
    toolName: z.string(),
    action: ConsentActionSchema,
    /** The full arguments, pretty-printed JSON: never truncated. Shown as
     *  the action for MCP and unknown tools. */
    argumentsText: z.string(),
    workingDirectory: z.string(),
    sandboxMode: SandboxModeSchema,
    /** For a command the runtime runs: what the OS lets it do, from the
     *  canonical action (so the digest covers it). */
    containment: CommandContainmentSchema.optional(),
    roomLabel: z.string(),
    digestPrefix: z.string().regex(/^[0-9a-f]{12}$/),
    alwaysAllow: AlwaysAllowSchema,
    /** Absent where it is not offered (every action but an MCP call). */
    serverAlwaysAllow: ServerAlwaysAllowSchema.optional(),
    /** Why the automatic reviewer (approve-for-me) left this action to the
     *  person, when it did. The runtime's words, shown as text. */
    escalationReason: z.string().max(2_000).optional(),
    lang: LanguageSchema,
    theme: ThemeSchema,
    enableDelayMs: z.number().int().min(0).max(10_000),
  }),
  z.strictObject({
    subject: z.literal('form'),
    promptId: z.string().min(1).max(128),
    roomLabel: z.string(),
    message: z.string(),
    fields: z.array(ProtectedFormFieldSchema).min(1).max(50),
    lang: LanguageSchema,
    theme: ThemeSchema,
    enableDelayMs: z.number().int().min(0).max(10_000),
  }),
  z.strictObject({
    subject: z.literal('mode-change'),
    promptId: z.string().min(1).max(128),
    roomLabel: z.string(),
    /** The room's workspace folder: confirming a mode also accepts the
     *  folder now at this path when the one the room was made for was
     *  replaced. */
    workspace: z.string().max(4_096).optional(),
    /** The folder the room was made for was replaced: confirming accepts
     *  the one now at `workspace`. */
    acceptsReplacedWorkspace: z.literal(true).optional(),
    /** The room's stored settings failed their check: confirming seals
     *  them again, which gives back its grants and approver webhook. */
    resealsRoom: z.literal(true).optional(),
    fromMode: ModeSchema,
    toMode: ModeSchema,
    lang: LanguageSchema,
    theme: ThemeSchema,
    enableDelayMs: z.number().int().min(0).max(10_000),
  }),
  /** Setting (`url`) or removing (`url: null`) a room's approver webhook:
   *  whoever answers at that URL decides in the person's place. */
  z.strictObject({
    subject: z.literal('approver-webhook'),
    promptId: z.string().min(1).max(128),
    roomLabel: z.string(),
    url: z.string().max(2_048).nullable(),
    /** The webhook in force now, which this replaces or removes. */
    currentUrl: z.string().max(2_048).nullable(),
    /** How long the webhook has to answer before its silence denies. */
    timeoutSeconds: z.number().int().min(1).max(3_600),
    lang: LanguageSchema,
    theme: ThemeSchema,
    enableDelayMs: z.number().int().min(0).max(10_000),
  }),
  /** The new webhook's secret, shown this once so the person can give it to
   *  their approver; the only answer is closing the window. */
  z.strictObject({
    subject: z.literal('approver-webhook-secret'),
    promptId: z.string().min(1).max(128),
    roomLabel: z.string(),
    url: z.string().max(2_048),
    webhookId: z.string().max(64),
    secret: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    lang: LanguageSchema,
    theme: ThemeSchema,
    enableDelayMs: z.number().int().min(0).max(10_000),
  }),
])
export type ConsentView = z.infer<typeof ConsentViewSchema>
/** The view of one approval (the other subjects are a mode change, a form
 *  and the approver webhook). */
export type ApprovalView = Extract<ConsentView, { subject: 'approval' }>

/** Approval prompts answer allow-once / allow-always / deny (and, for an
 *  MCP call, allow-always-server); mode-change
 *  prompts answer confirm; form prompts answer submit / decline; all may
 *  cancel (close, Escape). */
export const ConsentAnswerSchema = z.enum([
  'allow-once',
  'allow-always',
  'allow-always-server',
  'deny',
  'confirm',
  'cancel',
  'submit',
  'decline',
])
export type ConsentAnswer = z.infer<typeof ConsentAnswerSchema>

export const ConsentDecisionMessageSchema = z.strictObject({
  promptId: z.string().min(1).max(128),
  answer: ConsentAnswerSchema,
  /** A sensitive form's values, with `submit` only. Main checks them
   *  against the form's schema before the runtime sees them. */
  values: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
    .optional(),
})
export type ConsentDecisionMessage = z.infer<typeof ConsentDecisionMessageSchema>

/** Element ids on the consent page: the preload and the tests both use them. */
export const CONSENT_BUTTON_IDS = {
  'allow-once': 'assent-allow-once',
  'allow-always': 'assent-allow-always',
  'allow-always-server': 'assent-allow-always-server',
  deny: 'assent-deny',
  confirm: 'assent-confirm',
  cancel: 'assent-cancel',
  submit: 'assent-submit',
  decline: 'assent-decline',
} as const
