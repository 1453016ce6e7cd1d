import { lstatSync, realpathSync } from 'node:fs'
import { realPathAllowingMissing } from '../policy/real-paths.ts'
import { sensitivePath } from '../policy/sensitive-paths.ts'
import {
  configOpenToOthers,
  thisProcessReader,
  type ConfigReader,
} from './config-open-to-others.ts'

/** How the refusal starts, for the gateway's `--config` and for the
 *  runtime's own MCP config (`ASSENT_MCP_CONFIG`), which it reloads too. */
export const GATEWAY_LEAD = 'the gateway starts whatever its config names, so it serves only'
export const RUNTIME_LEAD = 'Assent starts whatever its MCP config names, so it reads one only from'

/**
 * Why the gateway (or the runtime, with RUNTIME_LEAD) will not take the
 * MCP config `file`, or null. Each starts whatever its config names and
 * reloads the file as it changes, so the file must be one every door of
 * Assent leaves to the person to change: one the shared table of what
 * always needs a person names (a file named `mcp.json`, wherever it is),
 * by the path given and by its real path. A config under another name
 * would be Assent's own only to the process that reads it: the gateway's
 * is unknown to the runtime's tools, grants, reviewer, webhook and command
 * sandbox, the runtime's to every gateway, so an agent could rewrite or
 * read it unasked. Nor may another OS user be able to write it
 * (`configOpenToOthers`): they would choose what starts as this user.
 */
export function unkeptConfig(
  file: string,
  lead = GATEWAY_LEAD,
  reader: ConfigReader | null = thisProcessReader(),
): string | null {
  const real = realConfigPath(file)
  const unkept = real === null ? file : [file, real].find((path) => sensitivePath(path) === null)
  if (unkept === undefined) {
    const open = configOpenToOthers(real ?? file, reader)
    return open === null ? null : `${lead} a config no other user can change: ${open}`
  }
  const through =
    real === null ? ' (it is a link to nothing)' : unkept === file ? '' : ` (it is ${real})`
  return `${lead} a file every door of Assent keeps for the person to change${through}. Name it mcp.json`
}

/** `file`'s real path; where it is not there, where it would be made; null
 *  for a link to nothing, which becomes whatever file is later made where
 *  it points, under any name. */
function realConfigPath(file: string): string | null {
  try {
    return realpathSync(file)
  } catch {
    return isLink(file) ? null : (realPathAllowingMissing(file) ?? file)
  }
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink()
  } catch {
    return false
  }
}
