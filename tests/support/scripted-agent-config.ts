import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ScriptedAgentPlan } from './scripted-agent.ts'

const SCRIPTED_AGENT = fileURLToPath(new URL('./scripted-agent.ts', import.meta.url))

/** The agents.json entry of a scripted agent process (scripted-agent.ts)
 *  that plays `plan`, its plan and answers kept in `dir`. */
export function scriptedAgentEntry(
  dir: string,
  protocol: 'codex-app-server' | 'acp',
  plan: ScriptedAgentPlan,
): unknown {
  writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan))
  return {
    id: 'scripted',
    protocol,
    command: process.execPath,
    args: [SCRIPTED_AGENT, protocol, join(dir, 'plan.json'), join(dir, 'answers.jsonl')],
    ...(protocol === 'acp'
      ? {
          session_modes: {
            'ask-for-approval': 'read-only',
            'approve-for-me': 'read-only',
            'full-access': 'auto',
          },
        }
      : {}),
  }
}

/** What the scripted agent in `dir` received for each request it sent. */
export function scriptedAnswers(
  dir: string,
): Array<{ method: string; answer: Record<string, unknown> }> {
  const file = join(dir, 'answers.jsonl')
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { method: string; answer: Record<string, unknown> })
}
