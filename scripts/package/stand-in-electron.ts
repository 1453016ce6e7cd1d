/**
 * A stand-in for Electron's unpacked distribution, for packaging where no
 * Electron binary can be fetched (CI, these tests). electron-builder copies
 * an `electronDist` folder as the app's skeleton, renames its executable,
 * packs the app beside it and then flips the fuses in that executable with
 * @electron/fuses. @electron/fuses finds the fuses by searching the file for
 * a sentinel followed by the fuse wire (version byte, length byte, one byte
 * per fuse: '0' off, '1' on), exactly as Electron's build emits it
 * (Electron's build/fuses/build.py; @electron/fuses' dist/constants.js holds
 * the sentinel). The stand-in is a shell script carrying that sentinel and a
 * wire set to Electron's documented defaults (docs/tutorial/fuses.md in
 * Electron), so the real fuse flipping runs on it and its result can be read
 * back. Run, it says what it is and exits 1: a package built on it is for
 * checking, never for shipping.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The fuse sentinel Electron places before its wire (@electron/fuses' SENTINEL). */
export const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'
const FUSE_WIRE_VERSION = 1

/** Electron's defaults, in wire order (@electron/fuses' FuseV1Options):
 *  runAsNode on, cookie encryption off, NODE_OPTIONS on, --inspect on,
 *  asar integrity off, only-from-asar off, browser V8 snapshot off,
 *  file: extra privileges on, wasm trap handlers on. Every fuse
 *  electron-builder.yml sets differs from its default here, so a flip that
 *  did not happen shows. */
export const ELECTRON_DEFAULT_FUSES = '101100011'

export const STAND_IN_NOTICE =
  'stand-in for Electron: this package was built to check packaging and cannot run'

/** The executable's bytes: a shell script whose comment holds the wire. */
export function standInExecutable(): Buffer {
  return Buffer.concat([
    Buffer.from('#!/bin/sh\n# Electron fuse wire (read and written by @electron/fuses): '),
    Buffer.from(FUSE_SENTINEL),
    Buffer.from([FUSE_WIRE_VERSION, ELECTRON_DEFAULT_FUSES.length]),
    Buffer.from(ELECTRON_DEFAULT_FUSES),
    Buffer.from(`\necho '${STAND_IN_NOTICE}' >&2\nexit 1\n`),
  ])
}

/** Makes `dir` an unpacked Linux Electron distribution as electron-builder
 *  expects it (the `electron` executable and a `resources/` folder). The
 *  stand-in is Linux-shaped: macOS keeps its fuses in the framework inside
 *  Electron.app and Windows in electron.exe, which a shell script cannot
 *  stand in for. */
export function makeStandInElectronDist(dir: string): string {
  mkdirSync(join(dir, 'resources'), { recursive: true })
  const executable = join(dir, 'electron')
  writeFileSync(executable, standInExecutable())
  chmodSync(executable, 0o755)
  return dir
}
