import { z } from 'zod'

export const LanguageSchema = z.enum(['en', 'zh-CN'])
export type Language = z.infer<typeof LanguageSchema>
export const ThemeSchema = z.enum(['light', 'dark'])
export type Theme = z.infer<typeof ThemeSchema>

export const ModeSchema = z.enum(['ask-for-approval', 'approve-for-me', 'full-access'])

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
 * What main sends the protected window to render: data only, every string is
 * set with `textContent`. Built by main from the runtime's canonical action.
 */
export const ConsentViewSchema = z.discriminatedUnion('subject', [
  z.strictObject({
    subject: z.literal('approval'),
    promptId: z.string().min(1).max(128),
    kind: z.enum(['run-command', 'apply-changes', 'mcp-tool-call', 'read']),
    toolName: z.string(),
    /** The full arguments, pretty-printed JSON: never truncated. */
    argumentsText: z.string(),
    summary: z.string(),
    workingDirectory: z.string(),
    sandboxMode: z.string(),
    roomLabel: z.string(),
    digestPrefix: z.string().regex(/^[0-9a-f]{12}$/),
    /** For an MCP tool call: the server, what it says the tool does, and
     *  the preview it gave (null when the tool has none). */
    mcp: z
      .strictObject({
        serverName: z.string(),
        toolDescription: z.string(),
        previewText: z.string().nullable(),
      })
      .optional(),
    /** False when the runtime cannot honour "always allow" for this action
     *  (it would refuse it with 409); the window then does not offer it.
     *  Absent means offered, as before the runtime reported it. */
    alwaysAllowAvailable: z.boolean().optional(),
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
    fromMode: ModeSchema,
    toMode: ModeSchema,
    lang: LanguageSchema,
    theme: ThemeSchema,
    enableDelayMs: z.number().int().min(0).max(10_000),
  }),
])
export type ConsentView = z.infer<typeof ConsentViewSchema>

/** Approval prompts answer allow-once / allow-always / deny; mode-change
 *  prompts answer confirm; form prompts answer submit / decline; all may
 *  cancel (close, Escape). */
export const ConsentAnswerSchema = z.enum([
  'allow-once',
  'allow-always',
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
  deny: 'assent-deny',
  confirm: 'assent-confirm',
  cancel: 'assent-cancel',
  submit: 'assent-submit',
  decline: 'assent-decline',
} as const
