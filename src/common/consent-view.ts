import { z } from 'zod'

export const LanguageSchema = z.enum(['en', 'zh-CN'])
export type Language = z.infer<typeof LanguageSchema>
export const ThemeSchema = z.enum(['light', 'dark'])
export type Theme = z.infer<typeof ThemeSchema>

export const ModeSchema = z.enum(['ask-for-approval', 'approve-for-me', 'full-access'])

/** Time the buttons stay disabled after the window is shown and focused, so
 *  a click meant for another window cannot land on "Allow". */
export const BUTTON_ENABLE_DELAY_MS = 600

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
 *  prompts answer confirm; both may cancel (close, Escape). */
export const ConsentAnswerSchema = z.enum([
  'allow-once',
  'allow-always',
  'deny',
  'confirm',
  'cancel',
])
export type ConsentAnswer = z.infer<typeof ConsentAnswerSchema>

export const ConsentDecisionMessageSchema = z.strictObject({
  promptId: z.string().min(1).max(128),
  answer: ConsentAnswerSchema,
})
export type ConsentDecisionMessage = z.infer<typeof ConsentDecisionMessageSchema>

/** Element ids on the consent page: the preload and the tests both use them. */
export const CONSENT_BUTTON_IDS = {
  'allow-once': 'assent-allow-once',
  'allow-always': 'assent-allow-always',
  deny: 'assent-deny',
  confirm: 'assent-confirm',
  cancel: 'assent-cancel',
} as const
