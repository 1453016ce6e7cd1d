import { realPathAllowingMissing } from './git-hooks-folder.ts'
import { isInsideRoot } from './path-containment.ts'

// Assent's own files: the data folder (the store, the sealed keys, the
// gateway's connection file) and the configuration it decides from
// (`mcp.json`: which servers run and which of their calls run unasked;
// `agents.json`: what each agent may do; the gateway's `--config`). A
// write there reaches past every later question, and a read shows what
// the person keeps from agents, so no grant, reviewer or webhook answers
// for either: the person decides, as for a credential.

const ownPaths = new Set<string>()

/**
 * Adds `paths` to what this process keeps as Assent's own, as real paths
 * (a config not there yet, at the path it will be made). Only ever added
 * to: a process that served one data folder keeps it protected for as
 * long as it runs.
 */
export function keepAsAssentOwn(paths: readonly string[]): void {
  for (const candidate of paths) {
    const real = realPathAllowingMissing(candidate)
    ownPaths.add(real ?? candidate)
    // As written too: a path whose folder does not resolve yet.
    ownPaths.add(candidate)
  }
}

/** The first of `resolved` (real paths) that is one of Assent's own files
 *  or lies in its data folder, or null. */
export function assentOwnPathIn(resolved: readonly string[]): string | null {
  if (ownPaths.size === 0) return null
  for (const real of resolved) {
    for (const own of ownPaths) if (isInsideRoot(own, real)) return real
  }
  return null
}

/** Those of Assent's own files and folders that lie in the folder at the
 *  real path `folder`: a command that reads it whole reads them. */
export function assentOwnPlacesIn(folder: string): string[] {
  return [...ownPaths].filter((own) => isInsideRoot(folder, own))
}

/** Why, in English, finishing "<path>: …". */
export const ASSENT_OWN_WHY =
  "it is Assent's own (its data, or the configuration it decides what runs unasked from)"
