import { openSync, readSync, closeSync } from 'node:fs'

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** Width and height from a PNG's IHDR chunk, or undefined if the file is
 *  not a PNG. Reads only the first 24 bytes. */
export function pngSize(file: string): { width: number; height: number } | undefined {
  const header = Buffer.alloc(24)
  const fd = openSync(file, 'r')
  try {
    if (readSync(fd, header, 0, 24, 0) < 24) return undefined
  } finally {
    closeSync(fd)
  }
  if (!header.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined
  if (header.toString('ascii', 12, 16) !== 'IHDR') return undefined
  return { width: header.readUInt32BE(16), height: header.readUInt32BE(20) }
}
