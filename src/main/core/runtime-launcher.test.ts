import { describe, expect, it } from 'vitest'
import { nodeFlagsFor } from './runtime-launcher.ts'

describe('nodeFlagsFor', () => {
  it('asks for type stripping and node:sqlite on Node versions that need the flags', () => {
    expect(nodeFlagsFor('/app/main.ts', 'v22.12.0')).toEqual([
      '--experimental-strip-types',
      '--experimental-sqlite',
    ])
    expect(nodeFlagsFor('/app/main.ts', 'v22.17.1')).toEqual(['--experimental-strip-types'])
    expect(nodeFlagsFor('/app/main.ts', 'v23.5.0')).toEqual(['--experimental-strip-types'])
  })

  it('adds nothing where Node strips types by default', () => {
    expect(nodeFlagsFor('/app/main.ts', 'v22.18.0')).toEqual([])
    expect(nodeFlagsFor('/app/main.ts', 'v23.6.0')).toEqual([])
    expect(nodeFlagsFor('/app/main.ts', 'v24.21.0')).toEqual([])
  })

  it('never asks for type stripping for a built JavaScript entry', () => {
    expect(nodeFlagsFor('/app/main.js', 'v22.12.0')).toEqual(['--experimental-sqlite'])
  })
})
