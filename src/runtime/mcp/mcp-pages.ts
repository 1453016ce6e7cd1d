// Following a server's cursors (MCP pagination) is following the server:
// its lists are read whole here, in the runtime for a room's MCP calls and
// in the gateway for the lists it gathers from every server. A server that
// never stops paging would keep the caller waiting for ever and grow what
// it holds until the process runs out of memory; the runtime's process is
// the one that asks the person. So a list is read within limits, and one
// that goes past them is refused whole, never cut short: a list cut short
// would be a different list (a tool list is what a grant is bound to).

/** Pages of one list a server may send. Servers send one page, or a few
 *  of tens of entries; a thousand is a server that does not stop. */
export const MAX_LIST_PAGES = 1_000
/** Entries of one list, over all its pages, before it is refused. */
export const MAX_LIST_ENTRIES = 10_000

/** What a server sent for one page: its entries, and the cursor of the
 *  next page if there is one. */
export interface ListPage<T> {
  items: readonly T[]
  next?: string | undefined
}

/**
 * Every entry of one list, page by page from the first (`page(undefined)`).
 * Refused (an Error naming the server, the list and why) when the server
 * sends a cursor it sent before (it would page in a circle), more than
 * MAX_LIST_PAGES pages, or more than MAX_LIST_ENTRIES entries; a page that
 * fails fails the list.
 */
export async function everyPage<T>(
  serverId: string,
  list: string,
  page: (cursor: string | undefined) => Promise<ListPage<T>>,
): Promise<T[]> {
  const entries: T[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (let pages = 1; ; pages += 1) {
    const { items, next } = await page(cursor)
    if (entries.length + items.length > MAX_LIST_ENTRIES) {
      throw new Error(
        `${serverId} listed more than ${MAX_LIST_ENTRIES} ${list}; the list was refused`,
      )
    }
    entries.push(...items)
    if (next === undefined) return entries
    if (seen.has(next)) {
      throw new Error(`${serverId} sent a ${list} cursor it had sent before; the list was refused`)
    }
    if (pages === MAX_LIST_PAGES) {
      throw new Error(
        `${serverId} listed its ${list} in more than ${MAX_LIST_PAGES} pages; the list was refused`,
      )
    }
    seen.add(next)
    cursor = next
  }
}
