/**
 * The one check every IPC handler in main runs before it looks at a payload:
 * did this message come from the main frame of the window we expect, showing
 * the page we loaded there? Pure, so the Electron host and the CDP host feed
 * it the same facts and get the same answer, and it fails closed: a missing
 * fact, an unexpected type or a getter that throws is a refusal.
 */

/** What the handler expects its sender to be. */
export interface ExpectedSender {
  /** `webContents.id` of the window this channel belongs to. */
  webContentsId: number
  /**
   * Reads that window's main frame now. A function, because the main frame
   * object changes on a cross-document navigation and reading it throws once
   * the window is destroyed; both must end in a refusal, not a crash.
   */
  mainFrame: () => unknown
  /** `scheme://host[:port]` of the page, e.g. `assent-consent://consent`. */
  origin: string
  /** Path of the page, e.g. `/index.html`. */
  pathname: string
}

export interface SenderCheckInput {
  /**
   * The IPC event as the host received it: Electron's `IpcMainEvent` or
   * `IpcMainInvokeEvent`, or the CDP host's record of a binding call. Read
   * here, inside the fail-closed boundary: `sender.id` and `senderFrame`
   * (`url`, `parent`).
   */
  event: unknown
  expected: ExpectedSender
}

export type SenderVerdict = { ok: true } | { ok: false; reason: string }

const refuse = (reason: string): SenderVerdict => ({ ok: false, reason })

export function validateSender(input: SenderCheckInput): SenderVerdict {
  try {
    return check(input)
  } catch (error) {
    return refuse(`reading the sender threw: ${(error as Error)?.message ?? String(error)}`)
  }
}

function check({ event, expected }: SenderCheckInput): SenderVerdict {
  if (!Number.isInteger(expected.webContentsId)) return refuse('no expected webContents')
  if (!isObject(event)) return refuse('no IPC event')
  const sender = event.sender
  if (!isObject(sender)) return refuse('no sender webContents')
  const senderId: unknown = sender.id
  if (typeof senderId !== 'number' || senderId !== expected.webContentsId) {
    return refuse(`sender is webContents ${String(senderId)}, not ${expected.webContentsId}`)
  }

  // Electron sets senderFrame to null once the frame navigated away or was
  // destroyed: the page that sent the message is gone, so nothing it sent
  // may act.
  const frame: unknown = event.senderFrame
  if (!isObject(frame)) return refuse('no sender frame')
  if (frame.parent !== null) return refuse('sender is a subframe, not the main frame')
  const mainFrame = expected.mainFrame()
  if (!isObject(mainFrame) || frame !== mainFrame) {
    return refuse("sender frame is not the window's current main frame")
  }

  const url: unknown = frame.url
  if (typeof url !== 'string') return refuse('sender frame has no URL')
  return checkPage(url, expected)
}

/**
 * Compares the parsed URL part by part, never by prefix: `startsWith` would
 * accept `assent-consent://consent.evil/` or `…/index.html.evil`. The origin
 * is rebuilt from protocol and host because WHATWG `URL.origin` is the opaque
 * `"null"` for custom schemes, which would make every custom-scheme page,
 * `data:` and `blob:` included, look like ours.
 */
function checkPage(
  url: string,
  expected: Pick<ExpectedSender, 'origin' | 'pathname'>,
): SenderVerdict {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return refuse('sender URL does not parse')
  }
  if (parsed.username !== '' || parsed.password !== '') return refuse('sender URL has userinfo')
  if (parsed.host === '') return refuse(`sender URL has no host (${parsed.protocol})`)
  const origin = `${parsed.protocol}//${parsed.host}`
  if (origin !== expected.origin)
    return refuse(`sender origin is ${origin}, not ${expected.origin}`)
  if (parsed.pathname !== expected.pathname) {
    return refuse(`sender path is ${parsed.pathname}, not ${expected.pathname}`)
  }
  // The page is loaded without a query; a fragment is same-document and
  // leaves the page what it was. The last comparison catches what the parts
  // hide, such as an empty query (`index.html?` has `search === ''`).
  if (parsed.search !== '') return refuse('sender URL has a query')
  parsed.hash = ''
  if (parsed.href !== `${expected.origin}${expected.pathname}`) {
    return refuse('sender URL is not exactly the page')
  }
  return { ok: true }
}

/** Whether `url` is exactly the page (`pageOf`), compared as a sender's is. */
export function isExactPage(url: string, page: { origin: string; pathname: string }): boolean {
  return checkPage(url, page).ok
}

/** Origin and path of a page URL, in the form `ExpectedSender` compares. */
export function pageOf(url: string): { origin: string; pathname: string } {
  const parsed = new URL(url)
  if (parsed.host === '' || parsed.search !== '' || parsed.hash !== '') {
    throw new Error(`not a page URL: ${url}`)
  }
  return { origin: `${parsed.protocol}//${parsed.host}`, pathname: parsed.pathname }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null
}
