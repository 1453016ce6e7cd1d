import { z } from 'zod'
import { RequestedSchemaSchema } from './form-schema.ts'

/**
 * Input requests: the agent asking the person something (questions) or an
 * MCP server asking for a small form (elicitation). Neither decides an
 * action; what they carry back is data for the agent.
 */

/** An ordinary question waits this long silently, then this long with a
 *  countdown, before the runtime closes it with an empty answer. */
export const QUESTION_PHASE_MS = 60_000

export const QuestionOptionSchema = z.strictObject({
  label: z.string().min(1).max(200),
  explanation: z.string().max(1_000).optional(),
})
export type QuestionOption = z.infer<typeof QuestionOptionSchema>

export const QuestionSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  title: z.string().min(1).max(200),
  text: z.string().max(4_000),
  options: z.array(QuestionOptionSchema).max(20),
  /** The answer never shows in history and is never written in clear. */
  secret: z.boolean(),
})
export type Question = z.infer<typeof QuestionSchema>

export const FormRequestSchema = z.strictObject({
  message: z.string().min(1).max(4_000),
  requestedSchema: RequestedSchemaSchema.optional(),
})
export type FormRequest = z.infer<typeof FormRequestSchema>

export const InputRequestStatusSchema = z.enum([
  'pending',
  'answered',
  'dismissed',
  /** Nobody answered in time: an empty answer went to the agent. */
  'auto-resolved',
  'accepted',
  'declined',
  'cancelled',
  /** The runtime stopped waiting (it restarted): nobody will read an answer. */
  'stale',
])
export type InputRequestStatus = z.infer<typeof InputRequestStatusSchema>

/** What history keeps of one answer. A secret answer keeps only that it was
 *  saved: its text went to the waiting agent and nowhere else. */
export const StoredAnswerSchema = z.union([
  z.strictObject({
    questionId: z.string(),
    secret: z.literal(false),
    option: z.string().nullable(),
    text: z.string(),
  }),
  z.strictObject({ questionId: z.string(), secret: z.literal(true) }),
])
export type StoredAnswer = z.infer<typeof StoredAnswerSchema>

const FormValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])
export const FormContentSchema = z.record(z.string(), FormValueSchema)

export const InputRequestRecordSchema = z.strictObject({
  id: z.string(),
  roomId: z.string(),
  /** With the id, the request's identity: the same id in another turn is
   *  another request. Null for a form asked outside any turn. */
  turnId: z.string().nullable(),
  kind: z.enum(['questions', 'form']),
  questions: z.array(QuestionSchema),
  form: FormRequestSchema.nullable(),
  /** Never times out (asked so, or asked in plan mode). */
  blocking: z.boolean(),
  /** How long an ordinary question waits silently, then with a countdown;
   *  null for what never times out. */
  timing: z.strictObject({ silentMs: z.number().int(), countdownMs: z.number().int() }).nullable(),
  /** When the runtime answers the question with an empty answer, unless
   *  someone answers first (epoch ms): the runtime keeps the timer, so a
   *  question never waits forever when no workbench is open, and the
   *  workbench counts down to this same instant. Null for what never times
   *  out (a blocking question, a form). */
  autoResolveAt: z.number().int().nullable(),
  /** A secret question, or a form with a password or secret field. */
  sensitive: z.boolean(),
  status: InputRequestStatusSchema,
  answers: z.array(StoredAnswerSchema).nullable(),
  /** An accepted form's content, unless the form is sensitive. */
  content: FormContentSchema.nullable(),
  createdAt: z.number().int(),
  resolvedAt: z.number().int().nullable(),
})
export type InputRequestRecord = z.infer<typeof InputRequestRecordSchema>

export const AnswerTextSchema = z.string().max(4_000)

export const QuestionAnswerSchema = z.strictObject({
  questionId: z.string().min(1).max(64),
  /** Index of the chosen option, if any. */
  option: z.number().int().min(0).max(19).optional(),
  text: AnswerTextSchema.optional(),
})
export type QuestionAnswer = z.infer<typeof QuestionAnswerSchema>

/** `POST /v1/input-requests/:requestId/response`. */
export const InputResponseSchema = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('answer'),
    answers: z.array(QuestionAnswerSchema).min(1).max(20),
  }),
  z.strictObject({ action: z.literal('dismiss') }),
  /** Close an ordinary question now with an empty answer, as its timer
   *  would (the runtime does so on its own at `autoResolveAt`). */
  z.strictObject({ action: z.literal('auto-resolve') }),
  z.strictObject({ action: z.literal('accept'), content: z.record(z.string(), z.unknown()) }),
  z.strictObject({ action: z.literal('decline') }),
  z.strictObject({ action: z.literal('cancel') }),
])
export type InputResponse = z.infer<typeof InputResponseSchema>

/** What the asker receives for questions. */
export type QuestionsOutcome =
  | {
      status: 'answered'
      answers: Array<{ questionId: string; option: string | null; text: string }>
    }
  | { status: 'dismissed' | 'auto-resolved' | 'stale' }

/** What the asker (an MCP elicitation handler) receives for a form, in
 *  MCP's own terms. */
export type FormOutcome =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' | 'cancel' }
