// The runtime's messages in English, by code (runtime-message.ts reads
// them; src/common/i18n words them in every other language).

/**
 * Every message in English: the catalog `en` of src/common/i18n uses this
 * very object, and every other language must word each one. `{{name}}` is
 * a parameter. A line break in a template is a line break on screen.
 */
export const RUNTIME_MESSAGES_EN = {
  summary: {
    write: 'Write {{bytes}} bytes to {{path}}',
    delete: 'Delete {{path}}',
    deleteRecursive: 'Delete {{path}} and everything in it',
    read: 'Read {{path}}',
    list: 'List {{path}}',
    run: 'Run {{command}} in {{directory}}',
    mcp: '{{server}}: {{tool}}',
  },
  tool: {
    wrote: 'wrote {{bytes}} bytes to {{path}}',
    deleted: 'deleted {{path}}',
    deletedTree: 'deleted directory {{path}} and everything in it',
    deletedEmptyDirectory: 'deleted empty directory {{path}}',
    refusedRoot: 'refusing to delete {{path}}: it is the workspace or the file-system root',
    cannot: 'cannot {{action}} {{path}}: {{reason}}',
    emptyDirectory: '(empty directory)',
    noCheckedPath: 'no checked path was supplied for this call',
    tooLongToShow:
      'the change to {{path}} is {{lines}} lines, more than the {{shown}} the protected window shows; a person cannot allow what they are not shown, so it was not written (write it in smaller parts)',
    cannotStart: 'cannot start {{program}}: {{detail}}',
  },
  verb: {
    read: 'read',
    write: 'write',
    delete: 'delete',
    list: 'list',
    writeFiles: 'write files',
    runCommands: 'run commands',
    useNetwork: 'use the network',
  },
  fs: {
    notFound: 'does not exist',
    alreadyExists: 'already exists',
    isDirectory: 'is a directory',
    notDirectory: 'is not a directory',
    notEmpty: 'is a directory that is not empty',
    permissionDenied: 'permission denied',
    notPermitted: 'operation not permitted',
    symlinkRefused: 'became a symbolic link after it was checked',
    notAFile: 'not a regular file',
  },
  call: {
    unknownTool: 'Unknown tool {{tool}}.',
    toolNotAllowed: '{{agent}} may not use {{tool}}.',
    invalidArguments: 'Invalid arguments: {{detail}}',
    policyDenied: 'Denied by the room’s approval policy: it does not allow {{tool}}.',
    expired: 'Nobody confirmed this action in time; it did not run.',
    deniedByPerson: 'Denied by the person; it did not run.',
    deniedByReview: 'Denied by the automatic review: {{reason}}; it did not run.',
    deniedByWebhook: 'Denied by the approver webhook: {{reason}}; it did not run.',
    deniedByPolicy: 'Denied by the room’s policy: {{reason}}; it did not run.',
    denied: 'Denied; it did not run.',
    toolFailed: 'The tool failed: {{detail}}',
    neverAsks: 'the room’s policy never asks anyone (plan mode): refused without asking',
    notOfferedInPlan:
      'Plan mode offers only tools that run without asking; {{tool}} was not offered.',
    actionChanged:
      'The action stored for this approval changed outside Assent after the agent asked; the approval was withdrawn and nothing ran.',
    roomNarrowed:
      'The room’s mode was narrowed after this was allowed, and what allowed it no longer may; it did not run.',
    grantRevoked:
      'The “always allow” that answered this was revoked before it ran; it did not run.',
    webhookRemoved:
      'The approver webhook that answered this is no longer the room’s; its answer does not count, and it did not run.',
  },
  permission: {
    writeSummary: 'Write access to {{path}} for this turn',
    networkSummary: 'Network access for {{command}} for this turn',
    granted: '{{what}}: granted.',
    expired: 'Nobody decided this request in time; nothing widened.',
    deniedByPerson: 'Denied by the person; nothing widened.',
    deniedByPolicy: 'Denied by the room’s policy; nothing widened.',
    inPlan: 'Plan mode asks for no permission; leave plan mode first.',
    network:
      'Commands here run without network in Assent’s sandbox, and no room or turn can give them one; nothing was widened.',
    readOnlyAgent: '{{agent}} is read-only.',
    readOnlyRoom: 'The room is read-only: no directory can be made writable.',
    fullAccess: 'The room already lets writes go anywhere; nothing to widen.',
    notDirectory: '{{path}} is not an existing directory.',
    root: '{{path}} is a file-system root: that is every directory, not one.',
    gitDirectory: '{{path}}: it is a git directory, whose hooks and config run as code',
    sensitive: '{{path}}: {{reason}}',
    alreadyWritable: '{{path}} is already writable in this turn.',
    outsideAgentRoots: '{{path}} is outside the directories {{agent}} may use.',
  },
  access: {
    readOnlyAgent: 'This agent is read-only and cannot {{action}}.',
    readOnlyRoom: 'The room is read-only and cannot {{action}}.',
    outsideWorkspace: '{{path}} is outside the room’s workspace.',
    outsideAgentRoots: '{{path}} is outside the folders this agent may use.',
    invalidPath: '{{path}} cannot be used here.',
  },
  sandbox: {
    unavailable:
      'Refused: this room promises that commands run contained, and no sandbox can start here: {{missing}}. To fix it, {{fix}}. The command did not run.',
    workspaceChanged:
      'Refused: the workspace {{path}} is no longer the folder this room was made with; the command did not run.',
    widenedFolderChanged:
      'Refused: {{path}}, a folder the person let this turn write, is no longer the folder they were shown; the command did not run.',
    containmentChanged:
      'Refused: the sandbox this command would run in is no longer the one the person was shown; the command did not run.',
    notDecided: 'Refused: no sandbox was decided for this command; it did not run.',
    homeTooLarge:
      'Refused: the home folder {{path}} holds more than the sandbox searches for credentials to hide, and what it did not search cannot be hidden without hiding the folders this command may write; the command did not run. To fix it, move folders that hold many files (data sets, build output, other projects) out of the home folder, or use a workspace outside it.',
  },
  workspace: {
    missing:
      'The room’s workspace {{path}} cannot be found; nothing runs until it is back. Create a new room if it moved.',
    replaced:
      'The folder at {{path}} is no longer the one this room was made for: it was replaced. Nothing runs there until you confirm the room’s mode again in Assent’s window, which accepts the folder now at that path, or create a new room.',
    redirected:
      'The room’s workspace {{path}} now leads to {{target}}, not the folder the room was made for; nothing runs there. Create a new room for the folder you mean.',
  },
  mcp: {
    unknownServer: 'No MCP server is configured for {{tool}}.',
    readOnlyAgent: '{{agent}} is read-only and may not call {{tool}}.',
    notAllowed: '{{tool}} is not allowed on its server; it did not run.',
    definitionChanged: 'The server changed {{tool}} after it was approved; it did not run.',
    previewChanged: 'What {{tool}} would do changed after it was approved; it did not run.',
    tooLongToShow:
      'What {{tool}} would show you (its description, its preview or its arguments) is too long to read whole; it did not run.',
    failed: 'The MCP call failed: {{detail}}',
    cancelledByClient:
      'The MCP client cancelled this call while it waited for a decision; it did not run.',
    tooManyWaiting:
      'Assent refused this request without asking anyone: {{count}} requests of the same MCP client were already waiting for a decision. It did not run; ask again once one is decided.',
  },
  personOnly: {
    credentials: '{{path}} holds credentials: a person decides every change to it.',
    shellStartup: 'The shell runs {{path}} at start-up: a person decides every change to it.',
    git: 'Git keeps what it runs in {{path}}: a person decides every change to it.',
    runsLater:
      '{{path}} makes code run later without anyone being asked: a person decides every change to it.',
    builtAtRunTime:
      'The command builds what it touches only when it runs ({{path}}), which cannot be checked: a person decides it.',
    gitSettings: '{{path}} changes what git runs: a person decides it.',
    personSession:
      "{{path}} reaches your desktop session (the display, the session bus and its keychain, the SSH agent), where a program acts as you and can click in Assent's window: a person decides it.",
    unreadCommand:
      '{{path}} runs a command that cannot be read whole (its words, or the folder it runs in), which cannot be checked: a person decides it.',
    unwalked:
      '{{path}} holds more than the sandbox checks for git folders and files that run code, so not all of them are kept read-only: a person decides each command.',
    unlistable:
      '{{path}} cannot be listed, so the sandbox cannot check it for git folders and files that run code: a person decides each command.',
    hardLinked:
      '{{path}} has other names (hard links), any of which may be a file only a person may change: a person decides it.',
    linkedElsewhere:
      '{{path}} has other names (hard links) in the folders a command may write, which no sandbox keeps read-only or hidden: a command that writes or reads one of them reaches it, so a person decides each command.',
    tooManyPaths: '{{path}} names more paths than can be checked: a person decides it.',
    linksUnchecked:
      '{{path}} holds more entries than are checked, or a folder that cannot be listed, so it cannot be checked for a symbolic link leading to credentials, which a command that follows links reads through: a person decides each command.',
    readsCredentials:
      'The command reads {{path}}, which holds credentials, through a folder it names or a link in its workspace: a person decides it.',
    assentOwn:
      "{{path}} is Assent's own (its data, or the configuration it decides what runs unasked from): a person decides every change to it.",
  },
  review: {
    network: 'network calls are decided by a person',
    recursiveDelete: 'recursive deletes are never approved automatically',
    sensitiveChange: 'refused a change to {{path}}, which holds credentials or runs as code',
    deletes: 'deletes are decided by a person',
    writeOutside: 'the write is outside the workspace',
    writeInside: 'a non-destructive write inside the workspace',
    destructiveRead: 'a read that declares itself destructive',
    readOutside: 'the read is outside the workspace',
    readSensitive: 'the read would show {{path}}, which holds credentials',
    readInside: 'a read inside the workspace',
    unreadableCommand: 'the command line could not be read',
    pipesDownload: 'the command pipes a download into a shell, running unreviewed code',
    destructiveCommand:
      'the command is destructive (recursive delete, disk format or raw disk write)',
    commands: 'commands are decided by a person',
    failed: 'automatic review failed: {{detail}}',
    privateRead:
      'a read beyond the workspace ({{detail}}): only a person decides it, neither the automatic review nor the approver webhook is asked',
    replacesPrivate:
      'it replaces a file whose current lines are the person’s to see ({{detail}}): only a person decides it, neither the automatic review nor the approver webhook is asked',
  },
  turn: {
    agentNotConfigured: 'The agent {{agent}} is not configured.',
    readOnlyAgent: 'Full access is unavailable for this agent: it is read-only.',
    agentDirectoryLimits:
      'Full access is unavailable for this agent: it may use only certain folders.',
    invalidStep: 'The model answered something that is not a step ({{detail}}); nothing more runs.',
    tooManySteps:
      'The agent took {{steps}} steps without a final reply; the turn stopped and nothing more runs.',
    stopped: 'The turn stopped: {{detail}}',
  },
  reply: {
    questionDismissed: 'The question was dismissed; the agent went on without an answer.',
    questionAutoResolved:
      'Nobody answered in time: the question closed automatically and the agent went on.',
    questionStale: 'The question was no longer waited for.',
    answers: 'Thanks. I noted:\n{{lines}}',
    answer: '{{title}}: {{answer}}',
    answerSaved: '{{title}}: answer saved.',
    formDeclined: 'The form was declined.',
    formCancelled: 'The form was cancelled.',
    formReceived: 'Thanks, I received: {{names}}.',
    formValues: 'Thanks. {{message}}\n{{lines}}',
    formValue: '{{name}} = {{value}}',
  },
  offline: {
    help: 'I am the offline model and understand one command per line:\n{{grammar}}\nQuote a path with spaces: {{example}}',
    notUnderstood: 'I did not understand line {{line}}: {{text}}\n{{help}}',
    writing: 'Writing {{path}}.',
    reading: 'Reading {{path}}.',
    deleting: 'Deleting {{path}}.',
    deletingTree: 'Deleting {{path}} and everything in it.',
    listing: 'Listing {{path}}.',
    running: 'Running {{command}}.',
    callingMcp: 'Calling {{tool}} on the MCP server {{server}}.',
    asking: 'I have a question before I go on.',
    needDetails: 'I need a few details.',
    report: 'What happened:\n{{lines}}',
    callRun: 'run {{command}}',
    callPath: '{{tool}} {{path}}',
    done: '{{what}}: done.',
    doneWith: '{{what}}: done: {{output}}',
    refused: '{{what}}: refused, it did not run: {{output}}',
    denied: '{{what}}: {{output}}',
    expired: '{{what}}: nobody decided in time, so it did not run.',
    failed: '{{what}}: failed: {{output}}',
    askingWrite: 'I am asking for write access to {{path}} for this turn.',
    askingNetwork: 'I am asking for network access for {{command}} for this turn.',
    permissionWrite: 'write access to {{path}}',
    permissionNetwork: 'network access for {{command}}',
    permissionGranted: '{{what}}: granted for this turn.',
    permissionExpired: '{{what}}: nobody decided in time, so nothing widened.',
    permissionRefused: '{{what}}: refused without asking: {{output}}',
    permissionDenied: '{{what}}: {{output}}',
  },
  /** What Assent says about an external agent's turn (agents.json). */
  external: {
    runtimeStoppedBefore: 'The runtime stopped before the agent took this turn.',
    runtimeStoppedStarting: 'The runtime stopped while the agent was starting.',
    couldNotStart: 'The agent {{agent}} could not start: {{detail}}',
    interrupted: 'The agent’s turn was interrupted.',
    interruptedWith: 'The agent’s turn was interrupted: {{detail}}.',
    stoppedNarrowed:
      'The room’s mode was narrowed while the agent acted, so the agent was stopped; send the message again to go on under the new mode.',
    stoppedByPerson:
      'You stopped this turn: the agent was stopped with everything it had started, and what it was waiting for was withdrawn.',
    refusedTurn: 'The agent refused the turn.',
    refusedTurnWith: 'The agent refused the turn: {{detail}}.',
    failed: 'The agent’s turn failed.',
    failedWith: 'The agent’s turn failed: {{detail}}.',
    requestRefused:
      'Assent refused a request of the agent without asking: {{reason}}. The agent was answered "{{answer}}".',
    warned: 'The agent warned: {{text}}',
    madePersonOnly:
      'While the agent’s turn ran, its process made what only a person may make in the workspace, which nothing it was allowed covers: {{detail}}',
    refusedRequest: 'Refused: {{reason}}.',
    policyDenied: 'Denied by the room’s approval policy ({{policy}}): it does not allow this.',
    expired: 'Nobody confirmed this action in time; the agent was told no.',
    withdrawn: 'The agent withdrew its request while it waited for a decision; it did not run.',
    deniedByPerson: 'Denied by the person; the agent was told no.',
    deniedByPersonBecause: 'Denied by the person: {{reason}}; the agent was told no.',
    deniedByReview: 'Denied by the automatic review: {{reason}}; the agent was told no.',
    deniedByWebhook: 'Denied by the approver webhook: {{reason}}; the agent was told no.',
    deniedByPolicy: 'Denied by the room’s policy: {{reason}}; the agent was told no.',
    denied: 'Denied; the agent was told no.',
    actionMismatch:
      'Refused: the approval that was decided no longer shows what the agent asked to do.',
    whereChanged:
      'Refused: a path the agent named leads elsewhere now than where it was shown; the agent was told no.',
    sameCallBusy:
      'Assent refused a request of the agent without asking: it was for a call whose earlier request is still being decided, or whose allowed run still goes on. The agent was told no.',
    tooManyWaiting:
      'Assent refused a request of the agent without asking: {{count}} of its requests were already waiting for a decision. The agent was told no.',
    noFile: 'the request names no file',
    tooManyFiles: 'the request changes more than {{count}} files',
    tooLarge: 'the change is too large to show in the protected window',
    tooLongToShow:
      'the change to {{path}} is {{lines}} lines, more than the {{shown}} the protected window shows; a person cannot allow what they are not shown',
    add: 'Add {{path}}',
    update: 'Edit {{path}}',
    delete: 'Delete {{path}}',
    changesMore: '{{first}} and {{count}} more files',
    leadsTo: '{{path}}, which leads to {{real}}',
    whereNotShown: 'where it acts could not be worked out, so it cannot be shown',
    moveOntoChanged:
      'it moves a file onto {{path}}, which it also changes or moves another file onto; what that leaves cannot be shown',
    refusal: {
      unreadable: 'its parameters could not be read',
      otherSession: 'it named another session',
      unsupportedRequest: 'Assent does not serve that kind of request',
      unsupportedCommandKind: 'it was not a plain command (terminal input or a checkpoint)',
      networkAccess: 'it asked for network access, which the command line does not show',
      extraPermissions: 'it asked for extra permissions besides the command',
      noCommandLine: 'it did not name its command line and folder',
      unannouncedChanges: 'its file changes were never announced',
      grantRoot: 'it asked to write anywhere under a folder, not only the changes shown',
      commandFolderNotAbsolute:
        'it named the folder its command runs in by a relative path, so where it runs cannot be shown',
      placeNotAbsolute:
        'it named a place by a path that is not absolute, which the agent reads its own way (~ as its home folder), so where it acts cannot be shown',
      noAllowOnceOption: 'it offered no way to allow it just once',
      ambiguousOptions: 'two of its answers shared one id',
      turnCancelled: 'it came after Assent had ended the turn',
      otherTurn: 'it named a turn other than the one running',
    },
  },
  lines: {
    joined: '{{lines}}',
  },
}
