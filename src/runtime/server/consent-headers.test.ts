import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ACTION_DIGEST_HEADER,
  CONSENT_CARRYING_HEADERS,
  CONSENT_HEADER,
} from '../../contracts/http-headers.ts'
import {
  DIGEST,
  MAX_HEADER_BYTES,
  TOKEN,
  exchange,
  isExactSpacing,
  nameArb,
  request,
  servers,
  spacingArb,
  useConsentHeaderServers,
  valueArb,
} from '../test-support/consent-header-server.ts'

// Requests are written as raw bytes to real loopback servers (one tapped as
// the runtime taps, one not), so the tests choose every space, tab and line
// break, and how the bytes are split across writes. Where the tap cannot
// follow a connection's framing: consent-headers-tap.test.ts.

useConsentHeaderServers()

describe('exactHeaderValue: consent-carrying headers exactly as they arrived', () => {
  it('reads `name:value` and `name: value`, and refuses any other space or tab around the value', async () => {
    let exact = 0
    let padded = 0
    await fc.assert(
      fc.asyncProperty(nameArb, valueArb, spacingArb, async (name, value, { before, after }) => {
        const isExact = isExactSpacing(before, after)
        const [answer] = await exchange(
          servers.tapped,
          [request([`${name}:${before}${value}${after}`])],
          1,
        )
        const canonical = CONSENT_CARRYING_HEADERS.find((header) => header === name.toLowerCase())!
        expect(answer!.values[canonical]).toBe(isExact ? value : null)
        if (isExact) exact += 1
        else padded += 1
      }),
      { numRuns: 150 },
    )
    expect(exact).toBeGreaterThan(10)
    expect(padded).toBeGreaterThan(10)
  })

  it('refuses a header sent twice, even with the same value', async () => {
    for (const name of CONSENT_CARRYING_HEADERS) {
      const [twice] = await exchange(
        servers.tapped,
        [request([`${name}: ${TOKEN}`, `${name.toUpperCase()}: ${TOKEN}`])],
        1,
      )
      expect(twice!.values[name]).toBeNull()
      const [once] = await exchange(servers.tapped, [request([`${name}: ${TOKEN}`])], 1)
      expect(once!.values[name]).toBe(TOKEN)
    }
  })

  it('hands a comma-joined or inner-space value over whole, for the grammar to refuse', async () => {
    const [answer] = await exchange(
      servers.tapped,
      [request([`${CONSENT_HEADER}: ${TOKEN}, ${TOKEN}`, `${ACTION_DIGEST_HEADER}: ab cd`])],
      1,
    )
    expect(answer!.values).toEqual({
      [CONSENT_HEADER]: `${TOKEN}, ${TOKEN}`,
      [ACTION_DIGEST_HEADER]: 'ab cd',
    })
  })

  it('sees padding split across reads at any byte of the line', async () => {
    const line = `${CONSENT_HEADER}:  ${TOKEN}\t`
    const bytes = request([line])
    const lineStart = bytes.indexOf(line)
    for (let cut = lineStart; cut <= lineStart + line.length + 2; cut += 7) {
      const [answer] = await exchange(
        servers.tapped,
        [bytes.slice(0, cut), bytes.slice(cut)],
        1,
        true,
      )
      expect(answer!.values[CONSENT_HEADER], `cut at ${cut}`).toBeNull()
      // The server read the two parts apart, so the split was exercised.
      expect(answer!.chunks, `cut at ${cut}`).toBeGreaterThanOrEqual(2)
    }
    const exact = request([`${CONSENT_HEADER}: ${TOKEN}`])
    const [answer] = await exchange(servers.tapped, [exact.slice(0, 40), exact.slice(40)], 1, true)
    expect(answer!.values[CONSENT_HEADER]).toBe(TOKEN)
  })

  it('judges each request on a kept-alive connection by its own head: a padded one leaves nothing behind', async () => {
    for (const readApart of [true, false]) {
      // Read apart, each request is parsed before the next arrives; written
      // at once, both are pipelined in one read.
      const answers = await exchange(
        servers.tapped,
        [
          request([`${ACTION_DIGEST_HEADER}: ${DIGEST} `], { close: false }),
          request([`${ACTION_DIGEST_HEADER}: ${DIGEST}`], { close: false }),
          request([`${ACTION_DIGEST_HEADER}:\t${DIGEST}`], { close: false }),
          request([`${ACTION_DIGEST_HEADER}:${DIGEST}`]),
        ],
        4,
        readApart,
      )
      expect(
        answers.map((answer) => answer.values[ACTION_DIGEST_HEADER]),
        `read apart: ${readApart}`,
      ).toEqual([null, DIGEST, null, DIGEST])
    }
  })

  it('reads on after a body line longer than any head, and still sees a padded line', async () => {
    const longLine = 'x'.repeat(3 * MAX_HEADER_BYTES)
    const first = request([], { close: false, body: `${longLine}\r\n` })
    const exact = await exchange(
      servers.tapped,
      [first, request([`${CONSENT_HEADER}: ${TOKEN}`])],
      2,
    )
    expect(exact[1]!.values[CONSENT_HEADER]).toBe(TOKEN)
    const padded = await exchange(
      servers.tapped,
      [first, request([`${CONSENT_HEADER}: ${TOKEN} `])],
      2,
    )
    expect(padded[1]!.values[CONSENT_HEADER]).toBeNull()
  })

  it('reads an empty value as empty, and a lone space after the colon as padding', async () => {
    const [empty] = await exchange(servers.tapped, [request([`${CONSENT_HEADER}:`])], 1)
    expect(empty!.values[CONSENT_HEADER]).toBe('')
    const [spaced] = await exchange(servers.tapped, [request([`${CONSENT_HEADER}: `])], 1)
    expect(spaced!.values[CONSENT_HEADER]).toBeNull()
  })

  it('leaves alone other headers that start like, or are as long as, a consent header', async () => {
    const others = [
      `${CONSENT_HEADER}-extra:  padded `,
      `${CONSENT_HEADER.slice(0, -1)}x:  padded `,
      `${ACTION_DIGEST_HEADER.slice(0, -1)}x:\tpadded\t`,
      `x-other:  ${TOKEN} `,
    ]
    const [answer] = await exchange(
      servers.tapped,
      [request([...others, `${CONSENT_HEADER}: ${TOKEN}`, `${ACTION_DIGEST_HEADER}:${DIGEST}`])],
      1,
    )
    expect(answer!.values).toEqual({ [CONSENT_HEADER]: TOKEN, [ACTION_DIGEST_HEADER]: DIGEST })
  })

  it('sees a padded line in a read that starts with the blank line ending the head before, and only there', async () => {
    const first = request([`${CONSENT_HEADER}: ${TOKEN}`], { close: false })
    const second = request([`${CONSENT_HEADER}: ${TOKEN} `])
    // The first request's final CRLF starts the second read.
    const cut = first.length - 2
    const answers = await exchange(
      servers.tapped,
      [first.slice(0, cut), first.slice(cut) + second],
      2,
      true,
    )
    // The tap read both heads before either request was answered; each is
    // judged by its own.
    expect(answers.map((answer) => answer.values[CONSENT_HEADER])).toEqual([TOKEN, null])
    expect(answers[1]!.chunks).toBeGreaterThanOrEqual(2)
  })

  it('sees a padded line cut across reads after a read of more than a head', async () => {
    const body = 'b'.repeat(2 * MAX_HEADER_BYTES)
    const first = request([], { close: false, body: `${body}\r\n` })
    const second = request([`${CONSENT_HEADER}:  ${TOKEN}`])
    const cut = first.length + second.indexOf(TOKEN) + 10
    const both = first + second
    const answers = await exchange(servers.tapped, [both.slice(0, cut), both.slice(cut)], 2, true)
    expect(answers[1]!.values[CONSENT_HEADER]).toBeNull()
  })

  it('sees a padded line after a body line that spans reads and is longer than any head', async () => {
    const longLine = 'l'.repeat(2 * MAX_HEADER_BYTES)
    const first = request([], { close: false, body: longLine })
    const cut = first.length - MAX_HEADER_BYTES / 2
    const answers = await exchange(
      servers.tapped,
      [first.slice(0, cut), first.slice(cut), request([`${CONSENT_HEADER}: ${TOKEN}\t`])],
      2,
      true,
    )
    expect(answers[1]!.values[CONSENT_HEADER]).toBeNull()
  })

  it.each([
    // One body line: it starts like a consent header, and the part in the
    // second read does too; both end padded. Neither is a header line.
    [
      'even one that looks padded',
      `${CONSENT_HEADER}: ${'y'.repeat(MAX_HEADER_BYTES + 10)}`,
      `${CONSENT_HEADER}:  tail \r\n`,
    ],
    // A bare LF is no line break: what follows it is still the long line.
    [
      'nor what follows a bare LF in it',
      'w'.repeat(MAX_HEADER_BYTES + 10),
      `\n${CONSENT_HEADER}:  looks padded \r\n`,
    ],
  ])('never reads a body line longer than any head as a header, %s', async (_case, start, tail) => {
    const first = request([], { close: false, body: start + tail })
    const cut = first.length - tail.length
    const answers = await exchange(
      servers.tapped,
      [first.slice(0, cut), first.slice(cut), request([`${CONSENT_HEADER}: ${TOKEN}`])],
      2,
      true,
    )
    expect(answers[1]!.values[CONSENT_HEADER]).toBe(TOKEN)
  })

  it('sees a line padded only after its value when a read starts at or inside that line', async () => {
    const line = `${CONSENT_HEADER}: ${TOKEN} `
    const bytes = request([line])
    const lineStart = bytes.indexOf(line)
    for (const cut of [lineStart, lineStart + 1, lineStart + 2]) {
      const [answer] = await exchange(
        servers.tapped,
        [bytes.slice(0, cut), bytes.slice(cut)],
        1,
        true,
      )
      expect(answer!.values[CONSENT_HEADER], `cut at ${cut}`).toBeNull()
      expect(answer!.chunks, `cut at ${cut}`).toBeGreaterThanOrEqual(2)
    }
  })

  it('never reads a body as header lines, whatever length its lines have or wherever a read ends', async () => {
    for (const length of [20, MAX_HEADER_BYTES, MAX_HEADER_BYTES + 1]) {
      const line = `${CONSENT_HEADER}: ${'y'.repeat(length - CONSENT_HEADER.length - 3)} `
      expect(line).toHaveLength(length)
      const first = request([], { close: false, body: `${line}\r\n\r\n` })
      const cut = first.length - 4
      const answers = await exchange(
        servers.tapped,
        [first.slice(0, cut), first.slice(cut) + request([`${CONSENT_HEADER}: ${TOKEN}`])],
        2,
        true,
      )
      expect(answers[1]!.values[CONSENT_HEADER], `line of ${length}`).toBe(TOKEN)
    }
  })

  it('never reads a chunked body or its trailers as header lines', async () => {
    const padded = `${CONSENT_HEADER}:  ${TOKEN} `
    const data = `${padded}\r\n\r\n`
    const chunked =
      'POST /consent HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n' +
      `${data.length.toString(16)};name=value\r\n${data}\r\n` +
      `0\r\n${padded}\r\n\r\n`
    for (const readApart of [true, false]) {
      const answers = await exchange(
        servers.tapped,
        [chunked, request([`${CONSENT_HEADER}: ${TOKEN}`])],
        2,
        readApart,
      )
      expect(answers.map((answer) => answer.values[CONSENT_HEADER])).toEqual([null, TOKEN])
    }
  })

  it('ends a line longer than any head at a line break cut between reads', async () => {
    // A body with no final line break runs into the next request line, so
    // the tap sees one line longer than any head; its CR ends the first
    // read and its LF starts the second, right before a padded header.
    const body = 'z'.repeat(MAX_HEADER_BYTES + 10)
    const first = request([], { close: false, body })
    // The padded header straight after the request line.
    const second = request([`${CONSENT_HEADER}: ${TOKEN} `]).replace(
      /^(POST \/consent HTTP\/1\.1\r\n)(Host: [^\r]*\r\n)(.*?\r\n)/,
      '$1$3$2',
    )
    expect(second).toContain(`HTTP/1.1\r\n${CONSENT_HEADER}: ${TOKEN} \r\nHost`)
    const both = first + second
    const cut = first.length + second.indexOf('\r\n') + 1
    const answers = await exchange(servers.tapped, [both.slice(0, cut), both.slice(cut)], 2, true)
    expect(answers[1]!.values[CONSENT_HEADER]).toBeNull()
    expect(answers[1]!.chunks).toBeGreaterThanOrEqual(2)
  })

  it('reads a padded line cut across reads right after a line longer than any head', async () => {
    const first = request([], { close: false, body: 'v'.repeat(MAX_HEADER_BYTES + 10) })
    const second = request([`${CONSENT_HEADER}: ${TOKEN} `])
    const both = first + second
    // The first read ends inside the long line, the second inside the padded one.
    const cuts = [first.length - 5, first.length + second.indexOf(TOKEN) + 5]
    const parts = [both.slice(0, cuts[0]), both.slice(cuts[0], cuts[1]), both.slice(cuts[1])]
    const answers = await exchange(servers.tapped, parts, 2, true)
    expect(answers[1]!.values[CONSENT_HEADER]).toBeNull()
    expect(answers[1]!.chunks).toBeGreaterThanOrEqual(3)
  })

  it('reads nothing on a connection it never tapped: how the value arrived is unknown', async () => {
    const [answer] = await exchange(servers.untapped, [request([`${CONSENT_HEADER}: ${TOKEN}`])], 1)
    expect(answer!.values[CONSENT_HEADER]).toBeNull()
  })
})
