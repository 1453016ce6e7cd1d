import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The environment variable whose value Codex sends to the scripted model as
 *  its API key. The key is a dummy: the scripted model checks nothing. */
export const SCRIPTED_MODEL_KEY_VARIABLE = 'ASSENT_SCRIPTED_MODEL_KEY'
export const SCRIPTED_MODEL_KEY = 'sk-scripted-model'
export const SCRIPTED_MODEL_NAME = 'scripted-model'

/**
 * Writes a Codex configuration into `codexHome` (a throwaway folder, used as
 * both HOME and CODEX_HOME) that points Codex, and codex-acp, which reads the
 * same file, at the scripted model on loopback: no login, no retries, no
 * update check, no analytics, and `workspace` trusted so Codex does not ask
 * about the folder itself. Returns the variables the agent process needs.
 */
export function writeScriptedCodexHome(
  codexHome: string,
  modelBaseUrl: string,
  workspace: string,
): Record<string, string> {
  mkdirSync(codexHome, { recursive: true })
  const config = [
    `model = ${tomlString(SCRIPTED_MODEL_NAME)}`,
    'model_provider = "scripted"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = ${tomlString(modelBaseUrl)}`,
    'wire_api = "responses"',
    `env_key = ${tomlString(SCRIPTED_MODEL_KEY_VARIABLE)}`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 60000',
    '',
    '[analytics]',
    'enabled = false',
    '',
    `[projects.${tomlString(workspace)}]`,
    'trust_level = "trusted"',
    '',
  ].join('\n')
  writeFileSync(join(codexHome, 'config.toml'), config, { mode: 0o600 })
  return {
    HOME: codexHome,
    CODEX_HOME: codexHome,
    [SCRIPTED_MODEL_KEY_VARIABLE]: SCRIPTED_MODEL_KEY,
  }
}

/** A TOML basic string: JSON's escapes are a subset TOML accepts. */
function tomlString(value: string): string {
  return JSON.stringify(value)
}
