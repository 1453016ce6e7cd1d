import { describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical-json.ts'

describe('canonicalJson (RFC 8785)', () => {
  it('matches the RFC’s own example (section 3.2.2): numbers, string escapes, key order', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    ) as unknown
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    )
  })

  it('orders keys by UTF-16 code units, not by code points (RFC 8785 section 3.2.3)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    }
    // The emoji (surrogates D83D DE00) sorts before U+FB33, although its code
    // point U+1F600 is the larger one.
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'] as const
    const members = order.map((key) => `${JSON.stringify(key)}:${JSON.stringify(input[key])}`)
    const expected = `{${members.join(',')}}`
    expect(canonicalJson(input)).toBe(expected)
    expect(expected.startsWith('{"\\r":"Carriage Return","1":"One",')).toBe(true)
  })

  it('orders nested keys too, and keeps array order', () => {
    expect(canonicalJson({ b: [3, 1, { z: 1, a: 2 }], a: { d: 1, c: 2 } })).toBe(
      '{"a":{"c":2,"d":1},"b":[3,1,{"a":2,"z":1}]}',
    )
  })

  it('formats numbers the way ECMAScript does (RFC 8785 section 3.2.2.3 and appendix B)', () => {
    const cases: Array<[number, string]> = [
      [0, '0'],
      [-0, '0'],
      [1, '1'],
      [-1.5, '-1.5'],
      [1e20, '100000000000000000000'],
      [1e21, '1e+21'],
      [1e-6, '0.000001'],
      [1e-7, '1e-7'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [-1.7976931348623157e308, '-1.7976931348623157e+308'],
      [9007199254740992, '9007199254740992'],
      [295147905179352830000, '295147905179352830000'],
      [0.1 + 0.2, '0.30000000000000004'],
    ]
    for (const [value, text] of cases) {
      expect(canonicalJson(value), String(value)).toBe(text)
      expect(canonicalJson([value]), `[${value}]`).toBe(`[${text}]`)
    }
  })

  it('escapes only what JSON must: quotes, backslash and control characters, in lowercase hex', () => {
    expect(canonicalJson('"\\\b\f\n\r\t\u0000\u001f\u007f/é€😀')).toBe(
      '"\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f\u007f/é€😀"',
    )
  })

  it('writes no whitespace', () => {
    expect(canonicalJson({ a: [1, { b: null }], c: 'x y' })).toBe('{"a":[1,{"b":null}],"c":"x y"}')
  })

  it('refuses values JSON cannot represent instead of dropping them, naming where', () => {
    const refused: Array<[string, unknown, RegExp]> = [
      ['undefined', undefined, /\$ is not a JSON value/],
      ['an undefined property', { a: 1, b: undefined }, /\$\.b is not a JSON value/],
      ['undefined in an array', [1, undefined], /\$\[1\] is not a JSON value/],
      ['NaN', { n: Number.NaN }, /\$\.n is not a finite number/],
      ['Infinity', [Number.POSITIVE_INFINITY], /\$\[0\] is not a finite number/],
      ['-Infinity', Number.NEGATIVE_INFINITY, /\$ is not a finite number/],
      ['a function', { f: () => 1 }, /\$\.f is not a JSON value/],
      ['a symbol', { s: Symbol('s') }, /\$\.s is not a JSON value/],
      ['a bigint', { n: 1n }, /\$\.n is not a JSON value/],
      ['a Date (which JSON.stringify would turn into a string)', new Date(0), /not a JSON value/],
      ['a Map', new Map([['a', 1]]), /not a JSON value/],
      ['deeply nested', { a: [{ b: { c: Number.NaN } }] }, /\$\.a\[0\]\.b\.c is not a finite/],
    ]
    for (const [name, value, message] of refused) {
      expect(() => canonicalJson(value), name).toThrow(message)
    }
  })
})
