/**
 * Element ids on the consent page (src/renderer/consent/index.html) besides
 * the buttons, which are in CONSENT_BUTTON_IDS. The preload fills them; the
 * Chromium tests read them. No DOM types here, so Node-side tests can import
 * this file.
 */
export const CONSENT_PAGE_IDS = {
  content: 'assent-content',

  approvalSection: 'assent-approval',
  kind: 'assent-kind',
  title: 'assent-title',
  escalation: 'assent-escalation',
  action: 'assent-action',
  actionHeading: 'assent-action-heading',
  actionBody: 'assent-action-body',
  actionEnd: 'assent-action-end',
  containment: 'assent-containment',
  detailsHeading: 'assent-details-heading',
  roomLabel: 'assent-room-label',
  room: 'assent-room',
  sandboxModeLabel: 'assent-sandbox-mode-label',
  sandboxMode: 'assent-sandbox-mode',
  toolLabel: 'assent-tool-label',
  tool: 'assent-tool',
  workingDirectoryLabel: 'assent-working-directory-label',
  workingDirectory: 'assent-working-directory',
  digestLabel: 'assent-digest-label',
  digest: 'assent-digest',

  modeChangeSection: 'assent-mode-change',
  modeKind: 'assent-mode-kind',
  modeHeading: 'assent-mode-heading',
  modeSentence: 'assent-mode-sentence',
  modeFromLabel: 'assent-mode-from-label',
  modeFrom: 'assent-mode-from',
  modeToLabel: 'assent-mode-to-label',
  modeTo: 'assent-mode-to',
  modeAllowsLabel: 'assent-mode-allows-label',
  modeAllows: 'assent-mode-allows',
  modeGivesUp: 'assent-mode-gives-up',
  modeGivesUpLabel: 'assent-mode-gives-up-label',
  modeGivesUpText: 'assent-mode-gives-up-text',
  modeVouches: 'assent-mode-vouches',
  modeVouchesLabel: 'assent-mode-vouches-label',
  modeReplacedWorkspace: 'assent-mode-replaced-workspace',
  modeResealsRoom: 'assent-mode-reseals-room',
  modeRoomLabel: 'assent-mode-room-label',
  modeRoom: 'assent-mode-room',
  modeWorkspaceFact: 'assent-mode-workspace-fact',
  modeWorkspaceLabel: 'assent-mode-workspace-label',
  modeWorkspace: 'assent-mode-workspace',

  formSection: 'assent-form',
  formHeading: 'assent-form-heading',
  formIntro: 'assent-form-intro',
  formMessage: 'assent-form-message',
  formFields: 'assent-form-fields',
  formError: 'assent-form-error',
  formNote: 'assent-form-note',
  formRoomLabel: 'assent-form-room-label',
  formRoom: 'assent-form-room',

  webhookSection: 'assent-webhook',
  webhookKind: 'assent-webhook-kind',
  webhookHeading: 'assent-webhook-heading',
  webhookSentence: 'assent-webhook-sentence',
  webhookWarning: 'assent-webhook-warning',
  webhookWarningText: 'assent-webhook-warning-text',
  webhookSecretBox: 'assent-webhook-secret-box',
  webhookSecretLabel: 'assent-webhook-secret-label',
  webhookSecret: 'assent-webhook-secret',
  webhookSecretNote: 'assent-webhook-secret-note',
  webhookUrlLabel: 'assent-webhook-url-label',
  webhookUrl: 'assent-webhook-url',
  webhookCurrentFact: 'assent-webhook-current-fact',
  webhookCurrentLabel: 'assent-webhook-current-label',
  webhookCurrent: 'assent-webhook-current',
  webhookIdFact: 'assent-webhook-id-fact',
  webhookIdLabel: 'assent-webhook-id-label',
  webhookId: 'assent-webhook-id',
  webhookRoomLabel: 'assent-webhook-room-label',
  webhookRoom: 'assent-webhook-room',

  actions: 'assent-actions',
  notices: 'assent-notices',
  scrollCue: 'assent-scroll-cue',
  consequences: 'assent-consequences',
  keyboardHint: 'assent-keyboard-hint',
} as const

export type ConsentPageElement = keyof typeof CONSENT_PAGE_IDS

/** Classes the preload gives what it draws, for the stylesheet and tests. */
export const CONSENT_CLASSES = {
  /** One hidden or special character, shown as `⟨U+…⟩`. */
  escape: 'consent-escape',
  /** A value shown in stored order (a bidi override). */
  storedOrder: 'consent-stored-order',
  /** A word that can pass for another (mixed scripts), marked in place. */
  lookalike: 'consent-lookalike',
  /** Text whose spaces a browser would collapse or drop: kept as typed. */
  exactSpaces: 'consent-exact-spaces',
  /** One warning above the buttons. */
  notice: 'consent-notice',
  /** The containment line of a command that runs with all the person's
   *  rights: the danger style. */
  uncontained: 'consent-containment-uncontained',
} as const
