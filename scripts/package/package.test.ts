import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FuseState, getCurrentFuseWire } from '@electron/fuses'
import { describe, expect, it } from 'vitest'
import { parsePackageArgs } from './package.ts'
import { ELECTRON_DEFAULT_FUSES, makeStandInElectronDist } from './stand-in-electron.ts'

describe('the stand-in Electron distribution', () => {
  it('carries a fuse wire that @electron/fuses finds and reads as Electron’s defaults', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assent-stand-in-'))
    try {
      makeStandInElectronDist(dir)
      const wire = (await getCurrentFuseWire(join(dir, 'electron'))) as unknown as Record<
        string,
        unknown
      >
      expect(wire.version).toBe('1')
      const states = [...ELECTRON_DEFAULT_FUSES].map((bit) =>
        bit === '1' ? FuseState.ENABLE : FuseState.DISABLE,
      )
      expect(states.map((_, index) => wire[index])).toEqual(states)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('npm run package arguments', () => {
  it('packs against the stand-in only as the unpacked app', () => {
    expect(() => parsePackageArgs(['--stand-in-electron'])).toThrow('add --dir')
    expect(parsePackageArgs(['--dir', '--stand-in-electron'])).toEqual({
      dir: true,
      standInElectron: true,
    })
  })

  it('refuses an argument it does not know instead of passing it on', () => {
    expect(() => parsePackageArgs(['--no-fuses'])).toThrow()
  })
})
