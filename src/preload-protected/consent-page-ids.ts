/**
 * Element ids on the consent page (src/renderer/consent/index.html) besides
 * the buttons, which are in CONSENT_BUTTON_IDS. The preload fills them; the
 * Chromium tests read them. No DOM types here, so Node-side tests can import
 * this file.
 */
export const CONSENT_PAGE_IDS = {
  approvalSection: 'assent-approval',
  kind: 'assent-kind',
  summary: 'assent-summary',
  escalation: 'assent-escalation',
  toolLabel: 'assent-tool-label',
  tool: 'assent-tool',
  workingDirectoryLabel: 'assent-working-directory-label',
  workingDirectory: 'assent-working-directory',
  sandboxModeLabel: 'assent-sandbox-mode-label',
  sandboxMode: 'assent-sandbox-mode',
  roomLabel: 'assent-room-label',
  room: 'assent-room',
  digestLabel: 'assent-digest-label',
  digest: 'assent-digest',
  argumentsLabel: 'assent-arguments-label',
  arguments: 'assent-arguments',
  mcpSection: 'assent-mcp',
  mcpServerLabel: 'assent-mcp-server-label',
  mcpServer: 'assent-mcp-server',
  mcpDescriptionLabel: 'assent-mcp-description-label',
  mcpDescription: 'assent-mcp-description',
  mcpPreviewSection: 'assent-mcp-preview-section',
  mcpPreviewLabel: 'assent-mcp-preview-label',
  mcpPreview: 'assent-mcp-preview',

  modeChangeSection: 'assent-mode-change',
  modeHeading: 'assent-mode-heading',
  modeSentence: 'assent-mode-sentence',
  modeFromLabel: 'assent-mode-from-label',
  modeFrom: 'assent-mode-from',
  modeToLabel: 'assent-mode-to-label',
  modeTo: 'assent-mode-to',
  modeAllowsLabel: 'assent-mode-allows-label',
  modeAllows: 'assent-mode-allows',
  modeRoomLabel: 'assent-mode-room-label',
  modeRoom: 'assent-mode-room',

  formSection: 'assent-form',
  formHeading: 'assent-form-heading',
  formIntro: 'assent-form-intro',
  formMessage: 'assent-form-message',
  formFields: 'assent-form-fields',
  formError: 'assent-form-error',
  formNote: 'assent-form-note',
  formRoomLabel: 'assent-form-room-label',
  formRoom: 'assent-form-room',

  actions: 'assent-actions',
  keyboardHint: 'assent-keyboard-hint',
} as const

export type ConsentPageElement = keyof typeof CONSENT_PAGE_IDS
