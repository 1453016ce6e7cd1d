/** The dummy key claude-agent-acp sends the scripted Messages API: it checks
 *  nothing. */
export const SCRIPTED_ANTHROPIC_KEY = 'sk-ant-scripted-model'

/**
 * The variables that point claude-agent-acp (the Claude Agent SDK under it)
 * at the scripted Messages API on loopback, in the throwaway `home`: no
 * login, and none of its update checks, telemetry or other traffic, so
 * nothing leaves the machine.
 */
export function scriptedClaudeEnvironment(
  home: string,
  messagesBaseUrl: string,
): Record<string, string> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: messagesBaseUrl,
    ANTHROPIC_API_KEY: SCRIPTED_ANTHROPIC_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
  }
}
