import { describe, expect, it } from 'vitest'
import { packageHookPart } from './package-hooks.ts'

// What part of a package.json the hooks run (the doors and the sandbox
// are walked in tests/package-hooks-doors.test.ts).

const part = (value: unknown): string => packageHookPart(JSON.stringify(value))

describe('packageHookPart', () => {
  it('is empty for a package with no hook key, whatever its scripts', () => {
    expect(part({ name: 'x', scripts: { precommit: 'x', lint: 'eslint' } })).toBe('')
    expect(part({ name: 'x', config: { port: 1 } })).toBe('')
  })

  it('holds the scripts a hook names, and those they name in turn', () => {
    const before = {
      husky: { hooks: { 'pre-commit': 'npm run lint:all' } },
      scripts: { 'lint:all': 'npm run lint && tsc', lint: 'eslint .', build: 'vite' },
    }
    const changed = (scripts: Record<string, string>) =>
      part({ ...before, scripts: { ...before.scripts, ...scripts } })
    expect(changed({ lint: 'sh evil.sh' })).not.toBe(part(before))
    expect(changed({ build: 'vite build' })).toBe(part(before))
  })

  it('is unknown for text that is no JSON but names a key, and empty for one that names none', () => {
    const broken = '{ "name": "x", "husky": { "hooks": { "pre-commit": "x" } }'
    expect(packageHookPart(broken)).not.toBe('')
    expect(packageHookPart(`${broken} `)).toBe(packageHookPart(broken))
    expect(packageHookPart('{ "name": "x", ')).toBe('')
  })
})
