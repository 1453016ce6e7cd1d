// A program's options read from its words as getopt reads them, for the
// person-only rule's reading of the command lines a program hands on
// (hand-offs.ts): which word is `env -S`'s string, `su -c`'s line, or the
// first word of the command `watch` runs.

/** How a program reads its options. */
export interface OptionSpec {
  /** Short options that take no value. */
  flags: string
  /** Short options that take a value: the rest of their word, or else the
   *  next word (`-ofile`, `-o file`). */
  withValue: string
  /** Short options whose value, if any, is the rest of their word. */
  optionalValue?: string
  /** Long options, without their `--`: `required` takes a value after `=`
   *  or else the next word, `optional` only after `=`. */
  long: Readonly<Record<string, 'none' | 'required' | 'optional'>>
  /** Whether options end at the first operand (getopt's `+`), or are read
   *  past operands too (GNU getopt's default). */
  stopsAtOperand: boolean
}

/** One option as read, by its letter or its long name in full. */
export interface OptionRead {
  name: string
  value: string | null
  /** Where the value is among the words (null when it is part of the
   *  option's own word, or there is none). */
  valueAt: number | null
}

/** The most option words (values included) one program's options are
 *  read for: no program is given more, and a command made of many
 *  programs each given all the others as options (`fish -c fish -c …`)
 *  would cost their square. Past it, the reading stops (`stopped`). */
export const MAX_OPTION_WORDS = 256

export interface OptionsRead {
  options: OptionRead[]
  /** Where the first operand is among the words (their length when there
   *  is none). */
  firstOperand: number
  /** Where every operand is among the words, in order: GNU getopt reads
   *  options past operands (`cp a -r b`), and all after `--` are
   *  operands. */
  operands: number[]
  /** An option the spec does not know, or an abbreviation of more than one
   *  long option: whether it takes a value, and so which word comes next,
   *  is not known here. Null when every option was read. */
  unknown: string | null
  /** The option word past `MAX_OPTION_WORDS` at which the reading stopped,
   *  or null: what it and the words after it say is not read. */
  stopped: string | null
}

/** The options of a program whose words (after its name) start at
 *  `words[from]`; indices returned are into `words`. `--` ends them; a
 *  lone `-` is an operand. */
export function readOptions(words: readonly string[], from: number, spec: OptionSpec): OptionsRead {
  const options: OptionRead[] = []
  let firstOperand = -1
  const operandsAt: number[] = []
  let unknown: string | null = null
  const operand = (at: number) => {
    if (firstOperand === -1) firstOperand = at
    operandsAt.push(at)
  }
  let stopped: string | null = null
  let optionWords = 0
  for (let i = from; i < words.length; i += 1) {
    const word = words[i] ?? ''
    if (word.startsWith('-') && word !== '-' && (optionWords += 1) > MAX_OPTION_WORDS) {
      stopped = word
      break
    }
    if (word === '--') {
      for (let at = i + 1; at < words.length; at += 1) operand(at)
      break
    }
    if (word.startsWith('--')) {
      const equals = word.indexOf('=')
      const name = longName(word.slice(2, equals === -1 ? undefined : equals), spec.long)
      const kind = name === null ? undefined : spec.long[name]
      if (name === null || kind === undefined || (kind === 'none' && equals !== -1)) {
        unknown ??= word
        continue
      }
      if (equals !== -1) {
        options.push({ name, value: word.slice(equals + 1), valueAt: null })
      } else if (kind === 'required') {
        options.push({ name, value: words[i + 1] ?? null, valueAt: i + 1 })
        i += 1
      } else {
        options.push({ name, value: null, valueAt: null })
      }
      continue
    }
    if (!word.startsWith('-') || word === '-') {
      operand(i)
      if (spec.stopsAtOperand) {
        for (let at = i + 1; at < words.length; at += 1) operandsAt.push(at)
        break
      }
      continue
    }
    for (let j = 1; j < word.length; j += 1) {
      const letter = word[j] ?? ''
      const rest = word.slice(j + 1)
      if (spec.withValue.includes(letter)) {
        const next = rest === '' ? i + 1 : null
        options.push({
          name: letter,
          value: next === null ? rest : (words[next] ?? null),
          valueAt: next,
        })
        if (next !== null) i += 1
        break
      }
      if (spec.optionalValue?.includes(letter) === true) {
        options.push({ name: letter, value: rest === '' ? null : rest, valueAt: null })
        break
      }
      if (!spec.flags.includes(letter)) unknown ??= `-${letter}`
      options.push({ name: letter, value: null, valueAt: null })
    }
  }
  const operands = firstOperand === -1 ? words.length : firstOperand
  return { options, firstOperand: operands, operands: operandsAt, unknown, stopped }
}

/** The long option `given` names, in full: itself, or the one option it is
 *  an abbreviation of (getopt_long takes any unambiguous one); null for
 *  none or more than one. */
function longName(given: string, long: OptionSpec['long']): string | null {
  if (Object.hasOwn(long, given)) return given
  const matches = Object.keys(long).filter((name) => given !== '' && name.startsWith(given))
  return matches.length === 1 ? (matches[0] ?? null) : null
}

/**
 * Whether `word` is the long option `--<long>` as getopt_long and git's
 * parse-options read it: the name whole or any start of it (`--har` is
 * `--hard`, `--set-u` is `--set-upstream-to`), alone or with `=value`.
 * Whether a start is ambiguous among the program's other options is not
 * known here, so every start is read as this option: where the option is
 * what makes an action ask, that only ever asks more (git refuses an
 * ambiguous start anyway). Never use it to find an option that makes an
 * action safe: a start read so may be another option to the program.
 */
export function longOf(word: string, long: string): boolean {
  const name = word.split('=')[0] ?? ''
  return name.length > 2 && name.startsWith('--') && long.startsWith(name.slice(2))
}

/**
 * Whether `word` may turn the long option `--<long>` off as git reads it:
 * `--no-<long>` or any start of it past `--no-` (`--no-sta` is
 * `--no-staged`), and `--n`, `--no` and `--no-`, which git reads as the
 * negation of its one negatable option. An option that makes an action
 * safe (`git restore --staged`) is not trusted when a word may take it
 * back (`--staged --no-staged`, which writes the work tree).
 */
export function mayNegateLong(word: string, long: string): boolean {
  const name = word.split('=')[0] ?? ''
  if (name === '--n' || name === '--no' || name === '--no-') return true
  return name.startsWith('--no-') && longOf(`--${name.slice('--no-'.length)}`, long)
}

/**
 * Whether `word` is a run of short options (`-um`, `-fu`) holding one of
 * `letters`. The letters after one that takes a value (`valueLetters`) are
 * that value, not options (`git restore -sHEADS` is `--source=HEADS`).
 * Where the letter is what makes an action ask, give no `valueLetters`:
 * every letter is then read as an option, which only asks more. Where it
 * makes an action safe, give all of them, so a value is never taken for it.
 */
export function shortOf(word: string, letters: string, valueLetters = ''): boolean {
  if (!/^-[^-]/.test(word)) return false
  for (const letter of word.slice(1)) {
    if (letters.includes(letter)) return true
    if (valueLetters.includes(letter)) return false
  }
  return false
}
