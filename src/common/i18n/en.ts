/**
 * English messages. The shape of this catalog is the shape every other
 * catalog must have (see `Catalog` in `index.ts`). Placeholders use the
 * i18next syntax `{{name}}`, so the React workbench can load the same
 * objects into i18next.
 */
export const en = {
  consent: {
    pageTitle: 'Assent: review this action',
    kind: {
      'run-command': 'Run command',
      'apply-changes': 'Apply changes',
      'mcp-tool-call': 'MCP tool call',
      permissions: 'Permissions request',
      read: 'Read files',
    },
    label: {
      tool: 'Tool',
      arguments: 'Arguments',
      workingDirectory: 'Working directory',
      sandboxMode: 'Sandbox mode',
      room: 'Room',
      actionDigest: 'Action digest',
    },
    button: {
      allowOnce: 'Allow once',
      allowAlways: 'Always allow',
      deny: 'Deny',
      confirm: 'Confirm change',
      cancel: 'Cancel',
    },
    modeChange: {
      heading: 'Change permission mode',
      sentence: 'Change the mode of {{room}} from {{from}} to {{to}}.',
      fromLabel: 'Current mode',
      toLabel: 'New mode',
      allowsLabel: 'What the new mode allows',
    },
    keyboardHint: 'Enter never approves. Press Escape to cancel.',
  },
  mode: {
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
}
