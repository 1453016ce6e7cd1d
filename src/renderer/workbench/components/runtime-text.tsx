import { Fragment, useCallback } from 'react'
import { useTranslation } from 'react-i18next'
import { LanguageSchema } from '../../../common/consent-view.ts'
import { catalogs } from '../../../common/i18n/index.ts'
import {
  messagePieces,
  type MessagePiece,
  messageText,
  templateIn,
  type RuntimeMessage,
} from '../../../contracts/runtime-message.ts'
import { ShownText } from './shown-text.tsx'

/** Looks a template up in the person's language: in the page's catalog of
 *  runtime messages, or (`whole`) in the whole catalog by its key. */
function useRuntimeLookup(whole = false) {
  const { i18n } = useTranslation()
  const lang = LanguageSchema.safeParse(i18n.language).data ?? 'en'
  return useCallback(
    (code: string) => templateIn(whole ? catalogs[lang] : catalogs[lang].runtime, code),
    [lang, whole],
  )
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
  return <Pieces pieces={message ? messagePieces(message, lookup) : undefined} english={english} />
}

/**
 * One of the page's own sentences (a catalog key) whose values are names
 * the person reads as they are (tool names, paths): the words in the
 * person's language, the values drawn as code.
 */
export function CatalogText({
  catalogKey,
  values,
  english,
}: {
  catalogKey: string
  values: Readonly<Record<string, string>>
  /** The same sentence as `t` words it, shown should the key's template
   *  not split into pieces. */
  english: string
}) {
  const lookup = useRuntimeLookup(true)
  return (
    <Pieces
      pieces={messagePieces({ code: catalogKey, params: { ...values } }, lookup)}
      english={english}
    />
  )
}

function Pieces({ pieces, english }: { pieces: MessagePiece[] | undefined; english: string }) {
  // No pieces: the English it came with, or an agent's own words.
  if (!pieces) return <ShownText text={english} multiline />
  return (
    <>
      {pieces.map((piece, index) => (
        <Fragment key={index}>
          {'text' in piece ? (
            piece.text
          ) : (
            <code className="runtime-value" data-verbatim="">
              <ShownText text={piece.value} />
            </code>
          )}
        </Fragment>
      ))}
    </>
  )
}
