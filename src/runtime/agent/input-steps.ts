import type {
  FormOutcome,
  FormRequest,
  Question,
  QuestionsOutcome,
} from '../../contracts/input-request.ts'
import type { Turn } from '../../contracts/room.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { InputRequestService } from '../input/input-request-service.ts'

/** What the agent, or Assent, says after asking: in English for history and
 *  the model, and as a code for the person's language. */
export interface InputReply {
  role: 'agent' | 'system'
  text: string
  message: RuntimeMessage
}

function reply(role: InputReply['role'], words: RuntimeMessage): InputReply {
  return { role, text: englishText(words), message: words }
}

/**
 * What the agent says after asking. Never a secret answer's text, nor the
 * values of a sensitive form: this message is history, stored and shown.
 */
export function questionsReply(
  questions: readonly Question[],
  outcome: QuestionsOutcome,
): InputReply {
  switch (outcome.status) {
    case 'dismissed':
      return reply('system', message('reply.questionDismissed'))
    case 'auto-resolved':
      return reply('system', message('reply.questionAutoResolved'))
    case 'stale':
      return reply('system', message('reply.questionStale'))
    case 'answered': {
      const lines = outcome.answers.map((answer) => {
        const question = questions.find((candidate) => candidate.id === answer.questionId)
        const title = question?.title ?? answer.questionId
        if (question?.secret) return message('reply.answerSaved', { title })
        const parts = [answer.option, answer.text].filter((part) => part && part !== '')
        return message('reply.answer', { title, answer: parts.join(' — ') })
      })
      return reply('agent', message('reply.answers', { lines }))
    }
  }
}

export function formReply(form: FormRequest, outcome: FormOutcome, sensitive: boolean): InputReply {
  if (outcome.action !== 'accept') {
    return reply(
      'system',
      message(outcome.action === 'decline' ? 'reply.formDeclined' : 'reply.formCancelled'),
    )
  }
  const names = Object.keys(outcome.content)
  if (sensitive) return reply('agent', message('reply.formReceived', { names: names.join(', ') }))
  const lines = names.map((name) =>
    message('reply.formValue', { name, value: JSON.stringify(outcome.content[name]) }),
  )
  return reply('agent', message('reply.formValues', { message: form.message, lines }))
}

/** Asks and waits, with the turn shown as waiting meanwhile. */
export async function askInTurn(
  inputs: InputRequestService,
  turn: Turn,
  step:
    | { type: 'questions'; questions: Question[]; blocking: boolean }
    | { type: 'form'; form: FormRequest },
  setWaiting: (waiting: boolean) => void,
): Promise<InputReply> {
  setWaiting(true)
  try {
    if (step.type === 'questions') {
      const { outcome } = inputs.askQuestions({
        roomId: turn.roomId,
        turnId: turn.id,
        questions: step.questions,
        blocking: step.blocking,
      })
      return questionsReply(step.questions, await outcome)
    }
    const pending = inputs.requestForm(turn.roomId, step.form, { turnId: turn.id })
    const outcome = await pending
    const sensitive = inputs
      .list(turn.roomId)
      .some((request) => request.turnId === turn.id && request.kind === 'form' && request.sensitive)
    return formReply(step.form, outcome, sensitive)
  } finally {
    setWaiting(false)
  }
}
