import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll } from 'vitest'
import { CommandSandbox } from '../command-sandbox.ts'
import { varTmpFolder } from './var-tmp-folder.ts'

/**
 * A sandbox for one test file, with a home folder of its own under a
 * scratch folder (`varTmpFolder`), and a fresh workspace beside it for
 * each test that asks. Call it at the file's top; what it returns is read
 * once its `beforeAll` has run.
 */
export function sandboxScratch(prefix: string): {
  base: () => string
  sandbox: () => CommandSandbox
  freshWorkspace: () => Promise<{ workspace: string; count: number }>
} {
  const scratch = varTmpFolder(prefix)
  let sandbox: CommandSandbox | undefined
  let count = 0
  beforeAll(async () => {
    const home = path.join(scratch(), 'home')
    await mkdir(home)
    sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
  })
  return {
    base: scratch,
    sandbox: () => {
      if (sandbox === undefined) throw new Error(`the ${prefix} sandbox is made in a beforeAll`)
      return sandbox
    },
    freshWorkspace: async () => {
      count += 1
      const workspace = path.join(scratch(), `ws-${count}`)
      await mkdir(workspace)
      return { workspace, count }
    },
  }
}
