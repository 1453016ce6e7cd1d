/** The first 24 bytes of a PNG of the given size: the signature, then an
 *  IHDR chunk header with width and height (all `pngSize` reads). */
export function tinyPng(width = 2, height = 3): Buffer {
  const header = Buffer.alloc(24)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0)
  header.writeUInt32BE(13, 8)
  header.write('IHDR', 12, 'ascii')
  header.writeUInt32BE(width, 16)
  header.writeUInt32BE(height, 20)
  return header
}
