/** The protected window's words: what it asks, what each action
 *  and answer is called, and what every part of an action's view says. */
export const enConsent = {
  kind: {
    'run-command': 'Run command',
    'apply-changes': 'Apply changes',
    'mcp-tool-call': 'MCP tool call',
    permissions: 'Permissions request',
    read: 'Read files',
    'permission-request': 'Permissions request',
    webhook: 'Approver webhook',
  },
  /** The window's title: the question, in words. */
  title: {
    webhookSet: 'Let a webhook decide for you in {{room}}?',
    webhookRemove: 'Stop the approver webhook of {{room}}?',
    webhookSecret: 'The approver webhook of {{room}} is set',
    command: 'Allow {{agent}} to run {{command}}?',
    write: 'Allow {{agent}} to write {{path}}?',
    delete: 'Allow {{agent}} to delete {{path}}?',
    deleteRecursive: 'Allow {{agent}} to delete {{path}} and everything in it?',
    read: 'Allow {{agent}} to read {{path}}?',
    list: 'Allow {{agent}} to list {{path}}?',
    mcp: 'Allow {{server}} to run {{tool}}?',
    other: 'Allow {{agent}} to run {{tool}}?',
    permissionWrite: 'Allow {{agent}} to write in {{path}} for this turn?',
    permissionNetwork: 'Allow {{agent}} to use the network for {{command}} this turn?',
    changeFile: 'Allow {{agent}} to change {{path}}?',
    changeFiles: 'Allow {{agent}} to change {{count}} files?',
    modeFullAccess: 'Give {{room}} full access?',
    modeChange: 'Change {{room}} to {{mode}}?',
  },
  action: {
    heading: 'What will happen',
    commandLine: 'Command',
    directory: 'In folder',
    shell: 'Runs through the shell (sh -c): quotes, variables, pipes and ; are the shell’s.',
    timeLimit: 'Time limit',
    seconds: '{{seconds}} s',
    writePath: 'File',
    resolvesTo: 'Full path',
    changes: 'Changes to the file',
    newFile: 'New file, {{lines}} lines',
    newFileOne: 'New file, 1 line',
    contentWhole:
      'Content to write, {{lines}} lines. The file’s current content is not shown: if it exists, all of it is replaced.',
    contentWholeOne:
      'Content to write, 1 line. The file’s current content is not shown: if it exists, all of it is replaced.',
    truncated: 'The change is longer than shown above. The whole new content follows.',
    contentAfterTruncation: 'The whole new content',
    emptyContent: '(empty: the file will have no content)',
    deletePath: 'Delete',
    recursiveYes: 'Recursive: the folder and everything in it, whatever it holds when this runs.',
    recursiveNo: 'Not recursive: only this file or empty folder.',
    readPath: 'Read',
    listPath: 'List the folder',
    server: 'MCP server',
    serverFolder: 'Server works in',
    tool: 'Tool',
    arguments: 'Arguments',
    argumentsAsSent: 'Arguments as sent',
    agentCommand:
      'The agent runs this command line itself, exactly as shown, and may run it outside its own sandbox.',
    fileAdd: 'New file',
    fileUpdate: 'Change',
    fileDelete: 'Delete',
    moveTo: 'Moved to',
    leadsTo: 'Which leads to',
    agentDiff: 'The change as the agent sent it',
    toolDescription: 'What the server says this tool does',
    preview: 'Preview from the server (nothing has run yet)',
    serverTools:
      'What “Always allow every tool” covers: the {{count}} tools this server offers now',
    hunk: 'Lines {{from}}–{{to}}',
    hunkOne: 'Line {{from}}',
    lineAdded: 'added',
    lineRemoved: 'removed',
    noFinalNewline: '(no line feed at the end)',
    trailingSpaces: '(spaces at the end of the line)',
    moreLines: 'Only the first {{shown}} of {{total}} lines are shown here.',
    columnOld: 'Old line',
    columnNew: 'New line',
    columnChange: 'Change',
    columnText: 'Text',
    columnLine: 'Line',
    end: 'End of the action',
    permission: {
      widens: 'What widens',
      writeDirectory: 'Write access to one more folder',
      network: 'Network access for one command',
      folder: 'Folder',
      duration: 'For how long',
      thisTurn: 'This turn only. The room’s mode does not change.',
      reason: 'Why the agent asks, in its own words',
      eachWriteAsks:
        'Writes there are no longer refused outright. Each one still asks, as the room’s mode says.',
    },
  },
  label: {
    tool: 'Tool',
    workingDirectory: 'Working directory',
    sandboxMode: 'Sandbox',
    room: 'Room',
    workspace: 'Workspace folder',
    actionDigest: 'Action digest',
    details: 'Where it runs',
  },
  containment: {
    contained:
      'Contained by the operating system: can change files only in {{roots}}; no network; your keys and Assent’s data are hidden.',
    containedReadOnly:
      'Contained by the operating system: cannot change any file; no network; your keys and Assent’s data are hidden.',
    fullAccess:
      'Not contained: this command runs with all your rights (the room is in full access).',
    uncontainedSetting:
      'Not contained: this command runs with all your rights (no sandbox can start here, and Assent was set to run commands anyway).',
  },
  sandbox: {
    'read-only': 'Read only: the agent may read, and change nothing',
    'workspace-write': 'Workspace: changes only inside the room’s folder',
    'danger-full-access': 'No sandbox: anything your account can do',
    'external-sandbox': 'An outside sandbox confines it',
  },
  button: {
    allowOnce: 'Allow once',
    allowAlways: 'Always allow',
    allowAlwaysServer: 'Always allow every tool of {{server}}',
    deny: 'Deny',
    confirm: 'Confirm change',
    confirmFullAccess: 'Give full access',
    confirmWebhook: 'Let it decide',
    removeWebhook: 'Stop it',
    secretCopied: 'Done',
    cancel: 'Cancel',
    submit: 'Send',
    decline: 'Decline',
  },
  consequence: {
    deny: 'Deny: the agent is told you said no, and goes on without it.',
    allowOnce: 'Allow once: this action runs once, exactly as shown.',
    alwaysAllow: {
      tool: 'Always allow remembers {{tool}} in this room: any file inside the workspace. Git’s files, credentials and files that run code on their own always ask.',
      command:
        'Always allow remembers this exact command, with these exact words and no shell. Git’s files, credentials and files that run code on their own always ask.',
      path: 'Always allow remembers deleting this one path ({{path}}), not the tool. Git’s files, credentials and files that run code on their own always ask.',
      'mcp-tool':
        'Always allow remembers {{tool}} on {{server}} (any arguments, same definition and start, its environment aside); calls outside the workspace and its folder, git’s files, credentials and files that run code on their own ask.',
      'mcp-read':
        'Always allow remembers reading any resource of {{server}}, not only this one (same start, its environment aside); places outside the workspace and its folder, git’s files, credentials and files that run code on their own ask.',
      'mcp-prompt':
        'Always allow remembers the prompt {{prompt}} of {{server}} (any arguments, same start, its environment aside); its other prompts, places outside the workspace and its folder, git’s files, credentials and files that run code on their own ask.',
      'agent-file':
        'Always allow remembers changes to this one file ({{path}}) in this room. Other files, deletes and moves still ask. Git’s files, credentials and files that run code on their own always ask.',
    },
    alwaysAllowServer: 'Every tool: the {{count}} tools listed, as above; a change asks again.',
    noAlwaysAllow: {
      'command-has-options':
        'Always allow is not offered: only a plain command (no shell, other folder or time limit) can be remembered.',
      'recursive-delete':
        'Always allow is not offered: a recursive delete removes whatever the folder holds next time.',
      'path-unresolvable': 'Always allow is not offered: the path to delete cannot be resolved.',
      'tool-not-grantable':
        'Always allow is not offered: {{tool}} can only be allowed once at a time.',
      'runtime-refuses': 'Always allow is not offered: Assent cannot remember this action.',
      'turn-only':
        'Always allow is not offered: a permission request widens this turn only and is never remembered.',
      'agent-change-not-grantable':
        'Always allow is not offered: only a change to one file, with no delete or move, can be remembered.',
      'agent-command-uncontained':
        'Always allow is not offered: the agent runs this command itself, outside Assent’s sandbox, so each run is allowed on its own.',
    },
  },
  notice: {
    direction:
      'This action contains characters that change the direction of text. They are shown as ⟨U+…⟩, and the text in the order it is stored.',
    hidden:
      'This action contains hidden or control characters. They are shown as ⟨U+…⟩ where they stand.',
    confusable:
      'A name or word in this action mixes scripts or uses letters or signs that look like others, so it can pass for another (a Cyrillic і in github.com, a fullwidth ＃ that a shell does not read as a comment). In a tool or server name those letters are shown as ⟨U+…⟩; any other such word or sign is underlined.',
    scroll: 'The action continues below. Allow stays off until you have scrolled to its end.',
    scrollConfirm:
      'This continues below. The button to confirm stays off until you have scrolled to the end.',
    refused:
      'Assent did not take that choice (it came too early, or the window was not in front). Choose again.',
    escapeTitle: 'A hidden or special character, shown by its code',
  },
  form: {
    heading: 'A form asks for something sensitive',
    intro: 'What you type here goes only to the agent that asked, never to the workbench or a log.',
    required: 'required',
    invalid: 'Check the form: {{problem}}',
    nothingRemembered: 'Nothing is remembered: the next request asks again.',
  },
  webhook: {
    urlLabel: 'Webhook',
    currentLabel: 'Replaces',
    idLabel: 'Webhook id',
    secretLabel: 'Secret',
    setSentence:
      'From now on, every action {{room}} would ask you about is sent to {{url}}, and its answer decides: a signed {"approved": true} allows it once; anything else, or no answer within {{seconds}} s, denies it. If approve-for-me is on, its reviewer still answers first.',
    setWarning:
      'Whoever controls this address decides for you in this room. While it answers, you can still decide in this window; the first decision counts.',
    removeSentence: 'The webhook will no longer decide: {{room}} asks you again.',
    secretSentence:
      'Give this secret to the approver at {{url}}. Assent signs each request with it, and the approver must sign its answers with it.',
    secretNote:
      'It is shown only now: Assent keeps it sealed and never shows it again. Setting the webhook again makes a new one.',
  },
  modeChange: {
    heading: 'Change permission mode',
    sentence: 'Change the mode of {{room}} from {{from}} to {{to}}.',
    fromLabel: 'Current mode',
    toLabel: 'New mode',
    allowsLabel: 'What the new mode allows',
    givesUpLabel: 'What you give up',
    givesUp:
      'You will no longer be asked. The agent may write and delete files anywhere your account can, run any command, and reach the network, in this room, until you change the mode back.',
    vouchesLabel: 'Confirming also does this',
    acceptsReplacedWorkspace:
      'The folder this room was made for was replaced. Confirming accepts the folder now at its path (a link to somewhere else is never accepted): the agent works in it again, and every “always allow” given for the old folder is revoked.',
    resealsRoom:
      'This room’s stored settings were changed outside Assent, or come from an older copy of its database. Confirming trusts them again, with the “always allow” grants and approver webhook the room still holds.',
  },
  keyboardHint:
    'Enter never approves; Escape cancels. Keyboard: Tab to a button, wait a moment, press Space.',
  escalated: 'The automatic reviewer asked you to decide: {{reason}}',
}
