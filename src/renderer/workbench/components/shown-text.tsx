import { Fragment } from 'react'
import { useTranslation } from 'react-i18next'
import { displaySafe, type DisplaySafeOptions } from '../../../common/display-safe-text.ts'

/** Printable ASCII, in a one-line value. */
export const PLAIN_LINE = /^[\x20-\x7e]*$/
/** Printable ASCII with line feeds and tabs, in text with lines. */
export const PLAIN_TEXT = /^[\x20-\x7e\n\t]*$/

/**
 * Text from an agent, a server or the runtime's values, drawn as the
 * protected window draws it (`displaySafe`): a character that reorders,
 * hides or passes for another (a right-to-left override, a zero-width
 * space, a control) is shown by its code, never acting on the text around
 * it, and a word or name that can pass for another is marked. The card
 * is not where the person decides, but what it shows must not read
 * otherwise than what the window will show them.
 */
export function ShownText({ text, ...options }: { text: string } & DisplaySafeOptions) {
  const { t } = useTranslation()
  // Most of what the workbench draws is printable ASCII, which
  // `displaySafe` leaves as one plain segment (shown-text.test.tsx holds
  // it to that): drawn as it is, without reading it character by
  // character at every render of a long timeline.
  if ((options.multiline === true ? PLAIN_TEXT : PLAIN_LINE).test(text)) return <>{text}</>
  const safe = displaySafe(text, options)
  const parts = safe.segments.map((segment, index) => (
    <Fragment key={index}>
      {segment.kind === 'escape' ? (
        <span
          className={`shown-escape shown-escape-${segment.reason}`}
          title={t('consent.notice.escapeTitle')}
        >
          {segment.label}
        </span>
      ) : segment.lookalike === true ? (
        <span className="shown-lookalike">{segment.text}</span>
      ) : (
        segment.text
      )}
    </Fragment>
  ))
  // A value mixing right-to-left letters with others is shown in the
  // order it is stored, so they cannot carry the digits and dots around
  // them elsewhere (as the window does).
  return safe.mixedDirection ? (
    <span className="shown-stored-order" dir="ltr">
      {parts}
    </span>
  ) : (
    <>{parts}</>
  )
}
