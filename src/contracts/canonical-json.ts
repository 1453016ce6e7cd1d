import canonicalize from 'canonicalize'

/**
 * RFC 8785 (JCS) canonical JSON. Throws on values JSON cannot represent
 * (undefined, functions, non-finite numbers) instead of silently dropping
 * them, because a digest over a silently changed value would bind consent to
 * something the person was not shown.
 */
export function canonicalJson(value: unknown): string {
  // Checked without naming anything first: a path is built only for the
  // error, since every digest and MAC of the store canonicalises a value.
  if (!isJsonValue(value)) assertJsonValue(value, '$')
  const text = canonicalize(value)
  if (text === undefined) throw new TypeError('value has no canonical JSON form')
  return text
}

function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (Array.isArray(value)) return value.every(isJsonValue)
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).every(isJsonValue)
  }
  return false
}

/** Throws, naming where, for the first value JSON cannot represent. */
function assertJsonValue(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${path} is not a finite number`)
    return
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertJsonValue(item, `${path}[${index}]`))
    return
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) assertJsonValue(item, `${path}.${key}`)
    return
  }
  throw new TypeError(`${path} is not a JSON value`)
}
