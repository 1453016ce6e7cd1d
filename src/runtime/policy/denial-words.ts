import {
  deciderOf,
  deniedByEnglish,
  type Decider,
  type DecidedBy,
} from '../../contracts/approval.ts'
import {
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'

/*
 * A denial as each door words it: who said no (`deciderOf`, the one rule)
 * and why. A tool call (built-in or MCP, in a room or through the gateway)
 * says it did not run; an external agent's request says the agent was told
 * no. The approver webhook and the room's policy are named as themselves,
 * never as the person, so nobody believes they decided what they did not.
 */

/** What a door knows of a denial: its approval, or an MCP call's ticket. */
export interface Denial {
  decidedBy?: DecidedBy | undefined
  reason?: string | null | undefined
  reasonMessage?: RuntimeMessage | undefined
}

/** Why, in words where the decider gave its own code, else as it wrote it. */
function reasonOf(denial: Denial): RuntimeMessage | string {
  return denial.reasonMessage ?? denial.reason ?? ''
}

/** Each decider's words at one door: with its reason (`because`), or
 *  without one (`bare`) where it may give none. */
type DoorWords = Readonly<
  Record<
    Decider,
    { because: RuntimeMessageCode; bare?: RuntimeMessageCode } | { bare: RuntimeMessageCode }
  >
>

/** A denied tool call, for the person: the reviewer's, the webhook's and
 *  the policy's reason shown beside their name. */
const CALL_WORDS: DoorWords = {
  person: { bare: 'call.deniedByPerson' },
  'automatic-review': { because: 'call.deniedByReview' },
  'approver-webhook': { because: 'call.deniedByWebhook' },
  'room-policy': { because: 'call.deniedByPolicy' },
  unrecorded: { bare: 'call.denied' },
}

/** An external agent's denied request: a person's reason is shown as they
 *  wrote it, the others' as their own code where they have one. */
const REQUEST_WORDS: DoorWords = {
  person: { because: 'external.deniedByPersonBecause', bare: 'external.deniedByPerson' },
  'automatic-review': { because: 'external.deniedByReview' },
  'approver-webhook': { because: 'external.deniedByWebhook' },
  'room-policy': { because: 'external.deniedByPolicy' },
  unrecorded: { bare: 'external.denied' },
}

function worded(door: DoorWords, denial: Denial): RuntimeMessage {
  const words = door[deciderOf(denial.decidedBy)]
  const reason = reasonOf(denial)
  if ('because' in words && (reason !== '' || words.bare === undefined)) {
    return message(words.because, { reason })
  }
  return message(words.bare ?? words.because)
}

export function deniedCallWords(denial: Denial): RuntimeMessage {
  return worded(CALL_WORDS, denial)
}

export function deniedRequestWords(denial: Denial): RuntimeMessage {
  return worded(REQUEST_WORDS, denial)
}

/** A denied tool call, in English for the model. */
export function deniedCallText(denial: Denial): string {
  const why = denial.reason ? `: ${denial.reason}` : ''
  return `${deniedByEnglish(denial.decidedBy)}${why}; it did not run.`
}

/** A denied MCP call, in English for the calling agent: its name, since
 *  the gateway's client may have several calls waiting. */
export function deniedMcpText(denial: Denial, name: string): string {
  const why = denial.reason ? `: ${denial.reason}` : ''
  return `${deniedByEnglish(denial.decidedBy)}${why}; ${name} did not run`
}
