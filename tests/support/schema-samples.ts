import { expect } from 'vitest'
import type { z } from 'zod'

/** The longest text and id a protocol message may carry (the message
 *  schemas' own bounds, restated so a test notices when they move). */
export const MAX_TEXT_CHARS = 16 * 1024 * 1024
export const MAX_ID_CHARS = 512

/**
 * Asserts that `schema` accepts `valid` and refuses every variant, each named
 * by what is wrong with it, so a failure says which guarantee broke.
 */
export function expectAcceptsOnly(
  schema: z.ZodType,
  valid: unknown,
  refused: Record<string, unknown>,
): void {
  const accepted = schema.safeParse(valid)
  expect(accepted.success, accepted.error?.message ?? 'the valid sample').toBe(true)
  for (const [why, value] of Object.entries(refused)) {
    expect(schema.safeParse(value).success, `refuses ${why}`).toBe(false)
  }
}

/** Variants of `base` with one field set to `value` (or removed when
 *  `value` is undefined), named after the field. */
export function withField(
  base: Record<string, unknown>,
  field: string,
  value: unknown,
): Record<string, unknown> {
  const copy = { ...base }
  if (value === undefined) delete copy[field]
  else copy[field] = value
  return copy
}
