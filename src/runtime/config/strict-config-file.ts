import { readFileSync } from 'node:fs'
import type { z } from 'zod'
import { writePrivately } from './private-file.ts'

/** A configuration file that cannot be used, with the field that is wrong. */
export class ConfigFileError extends Error {
  readonly field: string

  constructor(file: string, field: string, message: string) {
    super(`${file}: ${field}: ${message}`)
    this.field = field
  }
}

/** Parses one configuration file strictly with `schema`. A missing file is
 *  `empty`; anything else wrong throws `ConfigFileError` naming the field (or
 *  `(file)` when it is not JSON at all). */
export function parseConfigFile<S extends z.ZodType>(
  path: string,
  schema: S,
  empty: z.output<S>,
): z.output<S> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty
    throw new ConfigFileError(path, '(file)', `cannot be read: ${(error as Error).message}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new ConfigFileError(path, '(file)', `is not JSON: ${(error as Error).message}`)
  }
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.length ? issue.path.join('.') : '(root)'
    throw new ConfigFileError(path, field, issue?.message ?? 'invalid')
  }
  return parsed.data
}

export interface LoadedConfig<T> {
  config: T
  /** Why the file was refused, when it was; `config` is then the last good
   *  one (or `empty`). */
  refused?: ConfigFileError
}

/**
 * Loads `file`. A file that parses becomes the new last good configuration
 * (written to `lastGood`, mode 0600); one that does not is refused, and the
 * last good configuration stays in force. Failing closed: an edit that breaks
 * the file never widens anything, it leaves things as they were, or (on a
 * first start) empty.
 */
export function loadConfigKeepingLastGood<S extends z.ZodType>(
  file: string,
  lastGood: string,
  schema: S,
  empty: z.output<S>,
  /** Why `file` is not to be read at all, whatever it holds, or null. */
  unreadable: () => string | null = () => null,
): LoadedConfig<z.output<S>> {
  try {
    const why = unreadable()
    if (why !== null) throw new ConfigFileError(file, '(file)', why)
    const config = parseConfigFile(file, schema, empty)
    writePrivately(lastGood, `${JSON.stringify(config, null, 2)}\n`)
    return { config }
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error
    let previous = empty
    try {
      previous = parseConfigFile(lastGood, schema, empty)
    } catch {
      // A damaged last-good copy is no configuration at all: empty.
    }
    return { config: previous, refused: error }
  }
}
