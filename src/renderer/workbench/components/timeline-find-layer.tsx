import { memo, useLayoutEffect, useRef } from 'react'

export interface FindLayerProps {
  /** Every entry's key, text and estimated top, in timeline order. */
  keys: readonly string[]
  texts: readonly string[]
  tops: readonly number[]
  /** The keys of the entries the list has mounted: their words are in the
   *  entry itself, so their block leaves the layer. */
  mounted: ReadonlySet<string>
  onFound: (key: string) => void
}

/**
 * The words of every entry that is not mounted, each in a block near its
 * place in the list (where its estimated height puts it: a place that moves
 * with every measurement would restyle and lay out thousands of blocks).
 * The blocks are in flow, each a margin below the one before it: a
 * positioned block would be a paint layer of its own, and thousands of
 * those made every frame of a scroll slow.
 * The browser keeps `hidden="until-found"` content out of layout and out of
 * the accessibility tree, yet its find bar searches it; on a match it fires
 * `beforematch` (heard by the layer), reveals the block and scrolls
 * it into view, and the list mounts the entry there.
 *
 * A room has thousands of these blocks and the list's window moves on every
 * scroll, so they are plain DOM, kept by this component: made once per text
 * (`textContent`, never markup), and only the few whose entry mounted or
 * unmounted are taken out or put back, in timeline order, so the find bar
 * walks matches in the order the person reads them. React has no prop for
 * that value of `hidden` either.
 */
export const FindLayer = memo(function FindLayer({
  keys,
  texts,
  tops,
  mounted,
  onFound,
}: FindLayerProps) {
  const layer = useRef<HTMLDivElement>(null)
  const state = useRef<{
    blocks: HTMLElement[]
    made: Map<string, HTMLElement>
    present: Set<number>
  }>({ blocks: [], made: new Map(), present: new Set() })

  // New words or places: one block per entry, reusing those that did not
  // change, and the layer laid out again once.
  useLayoutEffect(() => {
    const element = layer.current
    if (!element) return
    const made = new Map<string, HTMLElement>()
    const blocks = keys.map((key, index) => {
      const old = state.current.made.get(key)
      const text = texts[index]!
      const block = old && old.textContent === text ? old : makeBlock(key, text)
      made.set(key, block)
      return block
    })
    state.current = { blocks, made, present: new Set() }
    element.replaceChildren()
    // `mounted` is applied by the effect below, which runs after this one.
  }, [keys, texts, tops])

  // The list's window moved: only the blocks whose entry changed side move.
  useLayoutEffect(() => {
    const element = layer.current
    if (!element) return
    const { blocks, present } = state.current
    if (present.size === 0 && element.childElementCount === 0) {
      const shown = blocks.filter((_, index) => !mounted.has(keys[index]!))
      element.replaceChildren(...shown)
      blocks.forEach((_, index) => mounted.has(keys[index]!) || present.add(index))
    } else {
      for (const index of present) {
        if (!mounted.has(keys[index]!)) continue
        blocks[index]!.remove()
        present.delete(index)
      }
      for (let index = 0; index < blocks.length; index += 1) {
        if (mounted.has(keys[index]!) || present.has(index)) continue
        element.insertBefore(blocks[index]!, nextPresent(blocks, present, index))
        present.add(index)
      }
    }
    // Each block sits its estimated top below the one before it in the
    // layer (blocks have no height until revealed); written only where it
    // changed, so a move of the window restyles a few blocks.
    let above = 0
    for (let index = 0; index < blocks.length; index += 1) {
      if (!present.has(index)) continue
      const margin = `${tops[index]! - above}px`
      const { style } = blocks[index]!
      if (style.marginTop !== margin) style.marginTop = margin
      above = tops[index]!
    }
  }, [keys, texts, tops, mounted])

  useLayoutEffect(() => {
    const element = layer.current
    if (!element) return
    const reveal = (event: Event) => {
      const key = event.target instanceof HTMLElement ? event.target.dataset.key : undefined
      if (key !== undefined) onFound(key)
    }
    // Capture: one listener for every block, whether or not the event bubbles.
    element.addEventListener('beforematch', reveal, { capture: true })
    return () => element.removeEventListener('beforematch', reveal, { capture: true })
  }, [onFound])

  return <div className="timeline__find" ref={layer} />
})

function makeBlock(key: string, text: string): HTMLElement {
  const block = document.createElement('div')
  block.className = 'timeline__find-text'
  block.dataset.testid = 'entry-find-text'
  block.dataset.key = key
  block.setAttribute('hidden', 'until-found')
  block.textContent = text
  return block
}

/** The first block after `index` that is in the layer, if any. */
function nextPresent(
  blocks: readonly HTMLElement[],
  present: ReadonlySet<number>,
  index: number,
): HTMLElement | null {
  for (let next = index + 1; next < blocks.length; next += 1) {
    if (present.has(next)) return blocks[next]!
  }
  return null
}
