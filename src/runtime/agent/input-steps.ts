import type {
  FormOutcome,
  FormRequest,
  Question,
  QuestionsOutcome,
} from '../../contracts/input-request.ts'
import type { Turn } from '../../contracts/room.ts'
import type { InputRequestService } from '../input/input-request-service.ts'

/**
 * What the agent says after asking. Never a secret answer's text, nor the
 * values of a sensitive form: this message is history, stored and shown.
 */
export function questionsReply(
  questions: readonly Question[],
  outcome: QuestionsOutcome,
): { role: 'agent' | 'system'; text: string } {
  switch (outcome.status) {
    case 'dismissed':
      return {
        role: 'system',
        text: 'The question was dismissed; the agent went on without an answer.',
      }
    case 'auto-resolved':
      return {
        role: 'system',
        text: 'Nobody answered in time: the question closed automatically and the agent went on.',
      }
    case 'stale':
      return { role: 'system', text: 'The question was no longer waited for.' }
    case 'answered': {
      const lines = outcome.answers.map((answer) => {
        const question = questions.find((candidate) => candidate.id === answer.questionId)
        const title = question?.title ?? answer.questionId
        if (question?.secret) return `${title}: answer saved.`
        const parts = [answer.option, answer.text].filter((part) => part && part !== '')
        return `${title}: ${parts.join(' — ')}`
      })
      return { role: 'agent', text: ['Thanks. I noted:', ...lines].join('\n') }
    }
  }
}

export function formReply(
  form: FormRequest,
  outcome: FormOutcome,
  sensitive: boolean,
): { role: 'agent' | 'system'; text: string } {
  if (outcome.action !== 'accept') {
    const what = outcome.action === 'decline' ? 'declined' : 'cancelled'
    return { role: 'system', text: `The form was ${what}.` }
  }
  const names = Object.keys(outcome.content)
  if (sensitive) return { role: 'agent', text: `Thanks, I received: ${names.join(', ')}.` }
  const values = names.map((name) => `${name} = ${JSON.stringify(outcome.content[name])}`)
  return { role: 'agent', text: [`Thanks. ${form.message}`, ...values].join('\n') }
}

/** Asks and waits, with the turn shown as waiting meanwhile. */
export async function askInTurn(
  inputs: InputRequestService,
  turn: Turn,
  step:
    | { type: 'questions'; questions: Question[]; blocking: boolean }
    | { type: 'form'; form: FormRequest },
  setWaiting: (waiting: boolean) => void,
): Promise<{ role: 'agent' | 'system'; text: string }> {
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
