import { closeSync, constants, openSync } from 'node:fs'
import { vi } from 'vitest'
import { DirectoryHandle } from '../anchored-directory.ts'

/** Runs `swap` each time a file tool opens a file by name in a folder it
 *  holds, just before the open: what is there then is what the tool
 *  finds, after it looked at the entry. Undone by `vi.restoreAllMocks()`. */
export function swapBeforeOpen(swap: () => void): void {
  const realOpenFile = DirectoryHandle.prototype.openFile
  vi.spyOn(DirectoryHandle.prototype, 'openFile').mockImplementation(function (
    this: DirectoryHandle,
    name: string,
    flags: number,
    mode?: number,
  ) {
    swap()
    return realOpenFile.call(this, name, flags, mode)
  })
}

/** Ends an open of the pipe that waits for a writer, if one does. */
export function releaseWaitingReader(pipe: string): void {
  try {
    closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK))
  } catch {
    // Nobody waits on it.
  }
}
