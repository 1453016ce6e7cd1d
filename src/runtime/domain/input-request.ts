import type { RuntimeErrorCode } from '../../contracts/error-codes.ts'
import { formContentProblem, isSensitiveSchema } from '../../contracts/form-schema.ts'
import type {
  FormOutcome,
  FormRequest,
  InputRequestRecord,
  InputResponse,
  Question,
  QuestionsOutcome,
  StoredAnswer,
} from '../../contracts/input-request.ts'

export function createQuestionsRequest(input: {
  id: string
  roomId: string
  turnId: string
  questions: Question[]
  blocking: boolean
  timing: InputRequestRecord['timing']
  now: number
}): InputRequestRecord {
  if (input.questions.length === 0) throw new RangeError('a question request needs a question')
  const timing = input.blocking ? null : input.timing
  return {
    id: input.id,
    roomId: input.roomId,
    turnId: input.turnId,
    kind: 'questions',
    questions: input.questions,
    form: null,
    blocking: input.blocking,
    timing,
    autoResolveAt: timing === null ? null : deadlineFrom(input.now, timing),
    sensitive: input.questions.some((question) => question.secret),
    status: 'pending',
    answers: null,
    content: null,
    createdAt: input.now,
    resolvedAt: null,
  }
}

export function createFormRequest(input: {
  id: string
  roomId: string
  turnId: string | null
  form: FormRequest
  now: number
}): InputRequestRecord {
  return {
    id: input.id,
    roomId: input.roomId,
    turnId: input.turnId,
    kind: 'form',
    questions: [],
    form: input.form,
    // A form waits for its server, which sets its own timeout: Assent never
    // answers one on the person's behalf.
    blocking: true,
    timing: null,
    autoResolveAt: null,
    sensitive: isSensitiveSchema(input.form.requestedSchema),
    status: 'pending',
    answers: null,
    content: null,
    createdAt: input.now,
    resolvedAt: null,
  }
}

/** When an ordinary question asked (or last kept waiting) at `now` closes
 *  on its own: after its silent phase and its countdown. */
function deadlineFrom(now: number, timing: NonNullable<InputRequestRecord['timing']>): number {
  return now + timing.silentMs + timing.countdownMs
}

/** Where a response came from. Only main's protected window may submit a
 *  sensitive form: the workbench shows model output and must never see it.
 *  `runtime` is the runtime's own timer closing an ordinary question. */
export type ResponseSource = 'workbench' | 'protected-window' | 'runtime'

export type KeepWaitingResult =
  { ok: true; record: InputRequestRecord } | { ok: false; code: InputRefusalCode; message: string }

/**
 * Starts an ordinary question's whole wait again from `now` (the person is
 * busy with its card). Pure: the caller stores the new deadline. Only a
 * pending question with a timer has one to move; a blocking question never
 * times out and a form waits for its server.
 */
export function keepWaiting(request: InputRequestRecord, now: number): KeepWaitingResult {
  if (request.status !== 'pending') {
    return refuse('not_pending', `the request is no longer waiting (${request.status})`)
  }
  if (request.kind !== 'questions') {
    return refuse('wrong_action', 'a form waits for its server and has no timer')
  }
  if (request.timing === null) return refuse('blocking', 'a blocking question never times out')
  return { ok: true, record: { ...request, autoResolveAt: deadlineFrom(now, request.timing) } }
}

/** Why a response was not applied; the server gives each its status. */
export type InputRefusalCode = Extract<
  RuntimeErrorCode,
  | 'not_pending'
  | 'blocking'
  | 'wrong_action'
  | 'protected_form'
  | 'invalid_content'
  | 'invalid_answer'
>

export type ResponseResult =
  | { ok: true; record: InputRequestRecord; outcome: QuestionsOutcome | FormOutcome }
  | { ok: false; code: InputRefusalCode; message: string }

/**
 * Applies one response to a pending request and returns both what history
 * keeps (`record`, redacted) and what the asker receives (`outcome`, in
 * full). Pure: the caller stores the record and hands on the outcome.
 */
export function applyResponse(
  request: InputRequestRecord,
  response: InputResponse,
  source: ResponseSource,
  now: number,
): ResponseResult {
  if (request.status !== 'pending') {
    return refuse('not_pending', `the request is no longer waiting (${request.status})`)
  }
  const closed = (status: InputRequestRecord['status']) => ({
    ...request,
    status,
    resolvedAt: now,
  })
  if (request.kind === 'questions') {
    switch (response.action) {
      case 'dismiss':
        return { ok: true, record: closed('dismissed'), outcome: { status: 'dismissed' } }
      case 'auto-resolve':
        if (request.blocking) {
          return refuse('blocking', 'a blocking question never times out')
        }
        return { ok: true, record: closed('auto-resolved'), outcome: { status: 'auto-resolved' } }
      case 'answer':
        return answerQuestions(request, response.answers, now)
      default:
        return refuse('wrong_action', `${response.action} is for forms, not questions`)
    }
  }
  switch (response.action) {
    case 'decline':
      return { ok: true, record: closed('declined'), outcome: { action: 'decline' } }
    case 'cancel':
      return { ok: true, record: closed('cancelled'), outcome: { action: 'cancel' } }
    case 'accept': {
      if (request.sensitive && source !== 'protected-window') {
        return refuse('protected_form', 'this form is answered only in the protected window')
      }
      const schema = request.form?.requestedSchema
      const content = response.content
      const problem = schema ? formContentProblem(schema, content) : answerOnlyProblem(content)
      if (problem) return refuse('invalid_content', problem)
      const values = content as Record<string, string | number | boolean | string[]>
      return {
        ok: true,
        record: { ...closed('accepted'), content: request.sensitive ? null : values },
        outcome: { action: 'accept', content: values },
      }
    }
    default:
      return refuse('wrong_action', `${response.action} is for questions, not forms`)
  }
}

/** A form without a schema is one large text field sent as `answer`. */
function answerOnlyProblem(content: Record<string, unknown>): string | null {
  const keys = Object.keys(content)
  if (keys.length !== 1 || keys[0] !== 'answer') return 'content: must be { answer }'
  return typeof content.answer === 'string' && content.answer.trim() !== ''
    ? null
    : 'answer: required'
}

function answerQuestions(
  request: InputRequestRecord,
  answers: Extract<InputResponse, { action: 'answer' }>['answers'],
  now: number,
): ResponseResult {
  const byId = new Map(answers.map((answer) => [answer.questionId, answer]))
  if (byId.size !== answers.length) return refuse('invalid_answer', 'a question is answered twice')
  for (const id of byId.keys()) {
    if (!request.questions.some((question) => question.id === id)) {
      return refuse('invalid_answer', `${id}: not a question of this request`)
    }
  }
  const full: Array<{ questionId: string; option: string | null; text: string }> = []
  const stored: StoredAnswer[] = []
  for (const question of request.questions) {
    const answer = byId.get(question.id)
    const text = answer?.text?.trim() ?? ''
    const option =
      answer?.option === undefined ? null : (question.options[answer.option]?.label ?? undefined)
    if (option === undefined) return refuse('invalid_answer', `${question.id}: no such option`)
    // Send is enabled only when every question is answered; the runtime
    // holds the same line so a forged call cannot send half an answer.
    if (option === null && text === '') {
      return refuse('invalid_answer', `${question.id}: every question needs an answer`)
    }
    full.push({ questionId: question.id, option, text })
    stored.push(
      question.secret
        ? { questionId: question.id, secret: true }
        : { questionId: question.id, secret: false, option, text },
    )
  }
  return {
    ok: true,
    record: { ...request, status: 'answered', answers: stored, resolvedAt: now },
    outcome: { status: 'answered', answers: full },
  }
}

function refuse(
  code: InputRefusalCode,
  message: string,
): { ok: false; code: InputRefusalCode; message: string } {
  return { ok: false, code, message }
}
