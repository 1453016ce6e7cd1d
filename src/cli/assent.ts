#!/usr/bin/env node
/**
 * `assent`: the command line for the person who owns a data folder.
 *
 *   assent audit verify [--data-dir D]     (npm run audit:verify -- --data-dir D)
 *
 * Runs from source with Node's type stripping (Node 22.19 or newer), so the
 * package's `bin` works without a build.
 */
import { runAssentCli } from './assent-cli.ts'

process.exitCode = await runAssentCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
})
