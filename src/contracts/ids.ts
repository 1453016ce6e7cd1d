/** Ids are opaque, short and URL-safe; anything else (encoded slashes, dots,
 *  overlong values) never reaches a handler. The runtime's router and main's
 *  renderer allowlist both match path segments with it. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'
