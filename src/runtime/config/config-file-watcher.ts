import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'

export interface ConfigFileWatcherOptions {
  /** The file to watch; it need not exist yet. */
  file: string
  /** Quiet time after the last change before `onChange` runs, so an editor's
   *  several writes (truncate, write, rename) read as one change. */
  debounceMs: number
  onChange: () => void
  onError: (error: unknown) => void
}

/**
 * Calls `onChange` after the file changes. It watches the file's folder,
 * not the file: editors save by writing a new file and renaming it over
 * the old one, which a watch on the old file's inode never sees, and a
 * file that is deleted and written again is the same name, not the same
 * inode. Events for other names in the folder are ignored.
 */
export class ConfigFileWatcher {
  private readonly options: ConfigFileWatcherOptions
  private watcher: FSWatcher | undefined
  private timer: NodeJS.Timeout | undefined

  constructor(options: ConfigFileWatcherOptions) {
    this.options = options
  }

  /** Starts watching; false (reported to `onError`) when the folder cannot
   *  be watched, in which case the file is read only at start. */
  start(): boolean {
    const name = basename(this.options.file)
    try {
      this.watcher = watch(dirname(this.options.file), { persistent: false }, (_event, changed) => {
        // Some platforms do not say which name changed: read it anyway.
        if (changed === null || changed === name) this.schedule()
      })
      this.watcher.on('error', (error) => this.options.onError(error))
      return true
    } catch (error) {
      this.options.onError(error)
      return false
    }
  }

  close(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.watcher?.close()
    this.watcher = undefined
  }

  private schedule(): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      try {
        this.options.onChange()
      } catch (error) {
        this.options.onError(error)
      }
    }, this.options.debounceMs)
    this.timer.unref()
  }
}
