// One entry of the table of what always needs a person
// (sensitive-path-rules.ts), and how a group of them is written.

export type SensitiveClass = 'credentials' | 'shell-startup' | 'git' | 'runs-later'

export interface SensitiveRule {
  class: SensitiveClass
  /**
   * - `folder`: the path is this folder or anything beneath it, wherever it
   *   stands (`value` may span segments: `.github/workflows`);
   * - `name`: the base name is exactly this;
   * - `pattern`: the base name matches this regular expression.
   */
  match: 'folder' | 'name' | 'pattern'
  value: string
  /** Whether reading it asks too: it holds a secret, so a read would put
   *  one in front of the model. A read of the others shows nothing secret. */
  readAsks: boolean
  /** Why, in English, finishing the sentence "<path>: …". */
  why: string
}

/** One rule per value, each of the same class, match, read and reason. */
export function rules(
  klass: SensitiveClass,
  match: SensitiveRule['match'],
  values: readonly string[],
  readAsks: boolean,
  why: string,
): SensitiveRule[] {
  return values.map((value) => ({ class: klass, match, value, readAsks, why }))
}
