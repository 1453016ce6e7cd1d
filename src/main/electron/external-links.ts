/**
 * Links in the workbench (model output may contain them) never navigate the
 * workbench itself. A link the person clicked may open in their browser, and
 * only when it is a plain http(s) URL: no `file:`, no custom scheme that
 * launches another app, no `javascript:`, no credentials in the URL.
 */
export function externalLinkTarget(url: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined
  if (parsed.username !== '' || parsed.password !== '') return undefined
  if (parsed.hostname === '') return undefined
  return parsed.href
}
