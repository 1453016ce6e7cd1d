import {
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'
import type { PersonOnly, PersonOnlyClass } from './person-only.ts'

// How a person-only reason (person-only.ts) is worded for the person: a
// message code for each class, in their language.

/** The reason as a message code, for the person's language. */
export function personOnlyMessage(found: PersonOnly): RuntimeMessage {
  return message(PERSON_ONLY_CODES[found.class], { path: found.path })
}

const PERSON_ONLY_CODES = {
  credentials: 'personOnly.credentials',
  'shell-startup': 'personOnly.shellStartup',
  git: 'personOnly.git',
  'runs-later': 'personOnly.runsLater',
  'built-at-run-time': 'personOnly.builtAtRunTime',
  'git-settings': 'personOnly.gitSettings',
  'person-session': 'personOnly.personSession',
  'unread-command': 'personOnly.unreadCommand',
  unwalked: 'personOnly.unwalked',
  unlistable: 'personOnly.unlistable',
  'hard-linked': 'personOnly.hardLinked',
  'linked-elsewhere': 'personOnly.linkedElsewhere',
  'too-many-paths': 'personOnly.tooManyPaths',
  'assent-own': 'personOnly.assentOwn',
  'reads-credentials': 'personOnly.readsCredentials',
  'links-unchecked': 'personOnly.linksUnchecked',
} as const satisfies Record<PersonOnlyClass, RuntimeMessageCode>
