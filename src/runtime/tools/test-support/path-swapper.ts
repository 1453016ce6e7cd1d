/**
 * A second process that keeps swapping one component of a path while a
 * test runs a file tool on it, as an agent's command running alongside
 * could: `node path-swapper.ts <mode> <args...>`.
 *
 *   dir <real> <outsideDir>
 *       moves the directory <real> aside, puts a symbolic link to
 *       <outsideDir> in its place, and moves it back, over and over;
 *   name <path> <outsideFile>
 *       puts, in turn, a hard link to <outsideFile>, a symbolic link to it
 *       and nothing at <path>, over and over.
 *
 * It prints `ready` once it has swapped at least once, and when a line
 * arrives on stdin it stops, puts <real> back (dir mode) or removes its
 * link (name mode), prints how many swaps it made as JSON and exits. Every
 * step may fail because the tool under test just made or removed something
 * there; the swapper then repairs and goes on.
 */
import {
  existsSync,
  linkSync,
  lstatSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs'

const [mode, first, second] = process.argv.slice(2)
if ((mode !== 'dir' && mode !== 'name') || first === undefined || second === undefined) {
  process.stderr.write(
    'usage: path-swapper.ts dir <real> <outsideDir> | name <path> <outsideFile>\n',
  )
  process.exit(2)
}

let stopping = false
let swaps = 0
process.stdin.on('data', () => {
  stopping = true
})

function attempt(step: () => void): void {
  try {
    step()
  } catch {
    // The tool under test raced us here; the next round repairs.
  }
}

/** Removes whatever is at `path` without following it. */
function clear(path: string): void {
  let isDirectory: boolean
  try {
    isDirectory = lstatSync(path).isDirectory()
  } catch {
    return
  }
  if (isDirectory) rmSync(path, { recursive: true, force: true })
  else unlinkSync(path)
}

function swapDirectory(real: string, outsideDir: string): void {
  const stash = `${real}.swapper-stash`
  attempt(() => renameSync(real, stash))
  attempt(() => symlinkSync(outsideDir, real))
  // Leave the link in place a little, so the tool meets it often.
  for (let i = 0; i < 5; i += 1) isLink(real)
  attempt(() => {
    if (lstatSync(real).isSymbolicLink()) unlinkSync(real)
  })
  if (existsSync(stash)) {
    attempt(() => {
      // A directory the tool created while ours was aside is replaced by
      // ours again (it lies inside the workspace; only ours matters here).
      if (existsSync(real) || isLink(real)) clear(real)
      renameSync(stash, real)
    })
  }
}

function swapName(path: string, outsideFile: string): void {
  const tmp = `${path}.swapper-tmp`
  attempt(() => clear(tmp))
  attempt(() => {
    linkSync(outsideFile, tmp)
    renameSync(tmp, path)
  })
  attempt(() => {
    symlinkSync(outsideFile, tmp)
    renameSync(tmp, path)
  })
  attempt(() => unlinkSync(path))
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

function finish(): void {
  if (mode === 'dir') {
    const stash = `${first}.swapper-stash`
    if (existsSync(stash)) {
      attempt(() => clear(first as string))
      attempt(() => renameSync(stash, first as string))
    } else if (isLink(first as string)) {
      attempt(() => unlinkSync(first as string))
    }
  } else {
    attempt(() => clear(`${first}.swapper-tmp`))
    const at = first as string
    attempt(() => {
      if (lstatSync(at).nlink > 1 || isLink(at)) unlinkSync(at)
    })
  }
  process.stdout.write(`${JSON.stringify({ swaps })}\n`)
  process.exit(0)
}

function round(): void {
  for (let i = 0; i < 50; i += 1) {
    if (mode === 'dir') swapDirectory(first as string, second as string)
    else swapName(first as string, second as string)
    swaps += 1
  }
  if (swaps === 50) process.stdout.write('ready\n')
  if (stopping) finish()
  else setImmediate(round)
}

round()
