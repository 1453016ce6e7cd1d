import { Fragment, useCallback } from 'react'
import { useTranslation } from 'react-i18next'
import { LanguageSchema } from '../../../common/consent-view.ts'
import { catalogs } from '../../../common/i18n/index.ts'
import {
  messagePieces,
  messageText,
  templateIn,
  type RuntimeMessage,
} from '../../../contracts/runtime-message.ts'

/** The page's catalog of runtime messages: looks a code up in the person's
 *  language. */
function useRuntimeLookup() {
  const { i18n } = useTranslation()
  const lang = LanguageSchema.safeParse(i18n.language).data ?? 'en'
  return useCallback((code: string) => templateIn(catalogs[lang].runtime, code), [lang])
}

/** Words a runtime message as plain text (a tooltip, a label), or gives the
 *  English it came with when this page does not know its code. */
export function useRuntimeWords(): (
  message: RuntimeMessage | undefined,
  english: string,
) => string {
  const lookup = useRuntimeLookup()
  return useCallback(
    (message, english) => (message ? (messageText(message, lookup) ?? english) : english),
    [lookup],
  )
}

/**
 * What the runtime said, in the person's language: the message's words,
 * with its values (paths, commands, tool names) drawn as code, exactly as
 * they are. The English text stands in when there is no message, or when
 * the runtime is newer than this page and sent a code it does not know.
 */
export function RuntimeText({
  message,
  english,
}: {
  message?: RuntimeMessage | undefined
  english: string
}) {
  const lookup = useRuntimeLookup()
  const pieces = message ? messagePieces(message, lookup) : undefined
  if (!pieces) return <>{english}</>
  return (
    <>
      {pieces.map((piece, index) => (
        <Fragment key={index}>
          {'text' in piece ? (
            piece.text
          ) : (
            <code className="runtime-value" data-verbatim="">
              {piece.value}
            </code>
          )}
        </Fragment>
      ))}
    </>
  )
}
