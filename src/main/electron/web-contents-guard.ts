import type { App, Session, WebContents } from 'electron'

/**
 * WebRTC gathers ICE candidates over UDP from the renderer's network
 * service, which neither the session's request filter nor a page's CSP
 * sees. This policy sends WebRTC only through a proxy, never straight over
 * UDP, and exposes no local address. Electron sets it per webContents
 * (`webContents.setWebRTCIPHandlingPolicy`, a renderer preference; there is
 * no per-session setting), so it is set on every webContents as it is
 * created, whatever session it belongs to, and again by each of our windows.
 */
export const WEBRTC_IP_HANDLING_POLICY = 'disable_non_proxied_udp' as const

/**
 * Defaults for every webContents, including ones we never meant to create
 * (and DevTools' in a development build): no webviews, no new windows, no
 * navigation in any frame, no moving its own window, no WebRTC around the
 * proxy. The workbench and protected windows add their own handlers on top.
 */
export function guardEveryWebContents(app: Pick<App, 'on'>): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents))
}

function guardWebContents(contents: WebContents): void {
  contents.setWebRTCIPHandlingPolicy(WEBRTC_IP_HANDLING_POLICY)
  contents.on('will-attach-webview', (event) => event.preventDefault())
  // 'will-frame-navigate' comes first and, prevented, cancels the navigation
  // of any frame; 'will-navigate' then never fires
  // (shell/browser/electron_navigation_throttle.cc).
  contents.on('will-frame-navigate', (event) => event.preventDefault())
  contents.on('will-navigate', (event) => event.preventDefault())
  contents.on('content-bounds-updated', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
}

/**
 * What every session of the app refuses: each permission request and check
 * (camera, microphone, notifications, clipboard, …), every device (USB, HID,
 * serial, Bluetooth) and every download. Nothing Assent shows needs any.
 */
export function grantNothing(target: Session): void {
  target.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false))
  target.setPermissionCheckHandler(() => false)
  target.setDevicePermissionHandler(() => false)
  target.on('will-download', (event) => event.preventDefault())
}

/**
 * Nothing of Assent uses the default session (the workbench and each
 * protected window have their own), but Electron creates it, and a webContents
 * made without a session would land in it. So it grants nothing either, no
 * spellchecker dictionary is fetched for it, and every request is cancelled.
 */
export function lockDownDefaultSession(defaultSession: Session): void {
  grantNothing(defaultSession)
  defaultSession.setSpellCheckerEnabled(false)
  defaultSession.webRequest.onBeforeRequest((_details, callback) => callback({ cancel: true }))
}
