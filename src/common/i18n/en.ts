import { RUNTIME_MESSAGES_EN } from '../../contracts/runtime-message.ts'
import { enConsent } from './en/consent.ts'
import { enErrorCodes } from './en/error-codes.ts'
import { enWorkbench } from './en/workbench.ts'

/**
 * English messages. The shape of this catalog is the shape every other
 * catalog must have (see `Catalog` in `index.ts`). Placeholders use the
 * i18next syntax `{{name}}`, so the React workbench can load the same
 * objects into i18next.
 */
export const en = {
  consent: enConsent,
  agent: {
    assistant: 'Assistant',
    reader: 'Reader',
    scoped: 'Scoped assistant',
    mcpGateway: 'The MCP client',
  },
  mode: {
    plan: {
      name: 'Plan',
      description:
        'Read and plan only: nothing that would ask is offered, nothing is written, questions wait for me',
    },
    'ask-for-approval': {
      name: 'Ask for approval',
      description: 'Ask me before writes and commands',
    },
    'approve-for-me': {
      name: 'Approve for me',
      description: 'An automatic reviewer decides; risky actions still come to me',
    },
    'full-access': {
      name: 'Full access',
      description: 'Run anything the agent can reach without asking',
    },
  },
  workbench: enWorkbench,
  /** Why a call failed, by its code (src/common/workbench-error.ts). */
  errorCode: enErrorCodes,
  app: {
    startFailed: 'Assent could not start',
    notStarted: 'Assent did not start',
    debugSwitches:
      'Assent does not start with debugging or sandbox-weakening switches ({{switches}}): they would let another program control the protected window, or take down the walls around its pages.',
    dataDirInUse:
      'Another Assent is already using the data folder {{dir}}. Close it first, or start this one with another ASSENT_DATA_DIR.',
    menu: {
      edit: 'Edit',
      window: 'Window',
      developer: 'Developer',
    },
  },
  /** What the runtime says, by code (src/contracts/runtime-messages-en.ts). */
  runtime: RUNTIME_MESSAGES_EN,
}
