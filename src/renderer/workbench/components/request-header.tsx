import type { ReactNode } from 'react'
import { displaySafe, flatDisplay } from '../../../common/display-safe-text.ts'
import { DisclosureIcon } from './icons.tsx'
import { ShownText } from './shown-text.tsx'

export interface RequestHeaderProps {
  icon: ReactNode
  /** What kind of request: "Apply changes", "Question", "Form". */
  label: string
  /** What it is about, on one line while folded (the whole text in a
   *  tooltip and in the details): a summary, a question's title. */
  title: string
  /** The title as drawn, where it holds values shown as code; absent, the
   *  title's text. */
  shownTitle?: ReactNode
  /** The title's test id, where a test reads it. */
  titleTestId?: string
  /** The title is someone else's words (an agent's question, a server's
   *  form), shown as they are in every language. */
  verbatimTitle?: boolean
  bodyId: string
  expanded: boolean
  /** Shows or hides the details; absent, the title is plain text. */
  onToggle?: (() => void) | undefined
  /** A short state next to the buttons, e.g. the time left. */
  status?: ReactNode
  /** The request's own buttons: always on this line, never folded away. */
  actions: ReactNode
}

/**
 * The title line of an open request in the block above the composer: a
 * heading whose button shows or hides the details (the accordion pattern),
 * then the buttons that answer it. The buttons are on this line so that,
 * however many requests are open, each one's buttons stay in view.
 */
export function RequestHeader(props: RequestHeaderProps) {
  const text = (
    <>
      {props.icon}
      <span className="request__label">{props.label}</span>{' '}
      <span
        className="request__text"
        title={props.verbatimTitle ? flatDisplay(displaySafe(props.title)) : props.title}
        data-testid={props.titleTestId}
        {...(props.verbatimTitle ? { 'data-verbatim': '' } : {})}
      >
        {props.shownTitle ?? (props.verbatimTitle ? <ShownText text={props.title} /> : props.title)}
      </span>
    </>
  )
  return (
    <header className="request__header">
      <h3 className="request__title">
        {props.onToggle ? (
          <button
            type="button"
            className="request__toggle"
            data-testid="request-toggle"
            aria-expanded={props.expanded}
            aria-controls={props.bodyId}
            onClick={props.onToggle}
          >
            <DisclosureIcon />
            {text}
          </button>
        ) : (
          <span className="request__toggle">{text}</span>
        )}
      </h3>
      {props.status}
      <div className="request__actions">{props.actions}</div>
    </header>
  )
}
