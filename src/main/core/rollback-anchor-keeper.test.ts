import fc from 'fast-check'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AnchorAdvanceAnswerSchema } from '../../contracts/rollback-anchor.ts'
import { ANCHOR_FILE_NAME, FileSecretStore } from './file-secret-store.ts'
import { RollbackAnchorKeeper, serveAnchorRequests } from './rollback-anchor-keeper.ts'
import type { RuntimeProcess } from './runtime-launcher.ts'
import { forgetfulSecretStore } from './test-support/forgetful-secret-store.ts'

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assent-anchor-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const keeper = () => new RollbackAnchorKeeper(new FileSecretStore(), dir)

describe('the rollback anchor in the file store', () => {
  it('is absent until written, then kept as decimal text in a 0600 file, with nothing left beside it', async () => {
    const anchor = keeper()
    expect(await anchor.read()).toBeUndefined()
    expect(await anchor.advance(0)).toBe(0)
    expect(await anchor.advance(41)).toBe(41)
    expect(await anchor.read()).toBe(41)
    const path = join(dir, ANCHOR_FILE_NAME)
    expect(readFileSync(path, 'utf8')).toBe('41\n')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual([ANCHOR_FILE_NAME])
  })

  it.each(['-1', '01', '4.5', '1e3', '9007199254740993', 'twelve', ''])(
    'refuses a stored anchor that is not a canonical counter (%j) instead of guessing',
    async (text) => {
      writeFileSync(join(dir, ANCHOR_FILE_NAME), `${text}\n`, { mode: 0o600 })
      await expect(keeper().read()).rejects.toThrow('does not hold a rollback anchor')
    },
  )

  it('refuses an anchor file others can read, naming the fix', async () => {
    await keeper().advance(3)
    chmodSync(join(dir, ANCHOR_FILE_NAME), 0o644)
    await expect(keeper().read()).rejects.toThrow(`chmod 600 ${join(dir, ANCHOR_FILE_NAME)}`)
  })

  it('replaces a symlink planted at the anchor, never the file it points to', async () => {
    const victim = join(dir, 'victim')
    writeFileSync(victim, 'untouched', { mode: 0o600 })
    symlinkSync(victim, join(dir, ANCHOR_FILE_NAME))
    const store = new FileSecretStore()
    await store.writeAnchor(dir, 5)
    expect(readFileSync(victim, 'utf8')).toBe('untouched')
    expect(await store.readAnchor(dir)).toBe(5)
  })

  it('fails, leaving no temporary file, when the anchor cannot be replaced', async () => {
    mkdirSync(join(dir, ANCHOR_FILE_NAME), { mode: 0o700 })
    await expect(new FileSecretStore().writeAnchor(dir, 5)).rejects.toThrow()
    expect(readdirSync(dir)).toEqual([ANCHOR_FILE_NAME])
  })
})

describe('RollbackAnchorKeeper', () => {
  it('refuses to lower the anchor, and leaves it where it was', async () => {
    const anchor = keeper()
    await anchor.advance(10)
    await expect(anchor.advance(9)).rejects.toThrow('refused to lower the rollback anchor')
    expect(await anchor.read()).toBe(10)
  })

  it('refuses what is not a counter', async () => {
    for (const counter of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
      // The keeper's own check, before the store is asked anything.
      await expect(keeper().advance(counter)).rejects.toThrow(
        `a rollback counter is a non-negative safe integer, not ${counter}`,
      )
    }
    expect(await keeper().read()).toBeUndefined()
  })

  it('does not write the store again for the counter it already holds (keychain writes are slow)', async () => {
    const store = new CountingFileStore()
    const anchor = new RollbackAnchorKeeper(store, dir)
    await anchor.advance(5)
    await anchor.advance(5)
    expect(store.writes).toBe(1)
    expect(await anchor.read()).toBe(5)
  })

  it('fails when the store drops the write: the anchor is read back', async () => {
    await expect(new RollbackAnchorKeeper(forgetfulSecretStore(), dir).advance(1)).rejects.toThrow(
      'was written to a forgetful store but read back as nothing',
    )
  })

  it('for any requests, even concurrent ones, holds the highest counter accepted and never moves back', async () => {
    let runs = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: 50 }), { minLength: 1, maxLength: 12 }),
        async (counters) => {
          runs += 1
          rmSync(join(dir, ANCHOR_FILE_NAME), { force: true })
          const anchor = keeper()
          const outcomes = await Promise.allSettled(counters.map((c) => anchor.advance(c)))
          // Served in order: each request succeeds exactly when it is not
          // below every counter asked for before it.
          let high = -1
          outcomes.forEach((outcome, index) => {
            const counter = counters[index] ?? 0
            expect(outcome.status).toBe(counter >= high ? 'fulfilled' : 'rejected')
            high = Math.max(high, counter)
          })
          expect(await anchor.read()).toBe(Math.max(...counters))
        },
      ),
      { numRuns: 60 },
    )
    expect(runs).toBe(60)
  })
})

/** The real file store, counting its anchor writes. */
class CountingFileStore extends FileSecretStore {
  writes = 0
  override async writeAnchor(dataDir: string, counter: number): Promise<void> {
    this.writes += 1
    await super.writeAnchor(dataDir, counter)
  }
}

/** The real file store whose anchor writes fail with a long message, as a
 *  keychain error with a long chain of causes would. */
class LongFailureFileStore extends FileSecretStore {
  override async writeAnchor(): Promise<void> {
    throw new Error(`keychain refused: ${'x'.repeat(5_000)}`)
  }
}

/** A runtime process as main sees one: records what main sends it and lets
 *  the test deliver what the runtime would send. The real channel is used in
 *  tests/rollback-anchor.test.ts. */
class ScriptedChild implements RuntimeProcess {
  readonly pid = 1
  readonly sent: unknown[] = []
  private listener: ((message: unknown) => void) | undefined
  private answered: (() => void) | undefined
  send(message: unknown): void {
    this.sent.push(message)
    this.answered?.()
  }
  onMessage(listener: (message: unknown) => void): void {
    this.listener = listener
  }
  onExit(): void {}
  kill(): void {}
  /** Hands main a message without waiting for any answer. */
  post(message: unknown): void {
    this.listener?.(message)
  }
  deliver(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      this.answered = resolve
      this.listener?.(message)
    })
  }
}

describe('serveAnchorRequests', () => {
  it('answers a well-formed request once the anchor holds it, and a refused one with the reason', async () => {
    const child = new ScriptedChild()
    const diagnostics: string[] = []
    serveAnchorRequests(child, keeper(), (message) => diagnostics.push(message))
    await child.deliver({ type: 'anchor-advance', requestId: 1, counter: 4 })
    await child.deliver({ type: 'anchor-advance', requestId: 2, counter: 3 })
    expect(child.sent).toEqual([
      { type: 'anchor-advanced', requestId: 1, counter: 4 },
      {
        type: 'anchor-refused',
        requestId: 2,
        error: expect.stringContaining('refused to lower the rollback anchor'),
      },
    ])
    expect(await keeper().read()).toBe(4)
    expect(diagnostics).toEqual([
      expect.stringMatching(
        /^the rollback anchor was not advanced to 3: refused to lower the rollback anchor/,
      ),
    ])
  })

  it('sends back no more of a failure than the runtime takes (its schema caps the text)', async () => {
    const child = new ScriptedChild()
    serveAnchorRequests(child, new RollbackAnchorKeeper(new LongFailureFileStore(), dir))
    await child.deliver({ type: 'anchor-advance', requestId: 1, counter: 1 })
    const [answer] = child.sent
    expect(AnchorAdvanceAnswerSchema.parse(answer)).toMatchObject({
      type: 'anchor-refused',
      requestId: 1,
      error: expect.stringMatching(/^keychain refused: x+$/),
    })
    expect((answer as { error: string }).error).toHaveLength(2_000)
  })

  it('ignores every other message of the channel, without a word and without throwing', async () => {
    const child = new ScriptedChild()
    const diagnostics: string[] = []
    serveAnchorRequests(child, keeper(), (message) => diagnostics.push(message))
    for (const other of [null, undefined, 'text', 7, { type: 'ready', port: 1 }, {}]) {
      expect(() => child.post(other)).not.toThrow()
    }
    await child.deliver({ type: 'anchor-advance', requestId: 1, counter: 1 })
    expect(child.sent).toEqual([{ type: 'anchor-advanced', requestId: 1, counter: 1 }])
    expect(diagnostics).toEqual([])
  })

  it('leaves a malformed request unanswered and the anchor untouched, and says so', async () => {
    const child = new ScriptedChild()
    const diagnostics: string[] = []
    serveAnchorRequests(child, keeper(), (message) => diagnostics.push(message))
    const malformed = [
      { type: 'anchor-advance', requestId: 1, counter: -1 },
      { type: 'anchor-advance', requestId: 0, counter: 1 },
      { type: 'anchor-advance', requestId: 1, counter: 1, extra: true },
      { type: 'anchor-advance', requestId: 1, counter: '1' },
    ]
    for (const message of malformed) void child.deliver(message)
    // A well-formed request after them is answered: the others were dropped.
    await child.deliver({ type: 'anchor-advance', requestId: 9, counter: 2 })
    expect(child.sent).toEqual([{ type: 'anchor-advanced', requestId: 9, counter: 2 }])
    expect(diagnostics).toHaveLength(malformed.length)
    for (const diagnostic of diagnostics) {
      expect(diagnostic).toMatch(/^refused a malformed anchor-advance request: \S/)
    }
    expect(await keeper().read()).toBe(2)
  })
})
