import type { Menu, MenuItemConstructorOptions } from 'electron'

export interface ApplicationMenuFacts {
  platform: NodeJS.Platform
  developmentBuild: boolean
  appName: string
  /** Top-level labels, in the person's language. */
  labels: { edit: string; window: string; developer: string }
}

/**
 * The application menu, spelled out item by item. Electron installs a
 * default one at 'will-finish-launching' (lib/browser/default-menu.ts) whose
 * View menu has Reload, Force Reload and Toggle DevTools, with their
 * accelerators. Reloading a protected window strands its prompt (the view is
 * sent once), and DevTools would let anyone at the keyboard script it. On
 * Windows and Linux `removeMenu()` and a null application menu remove it;
 * on macOS neither does (`Menu.setApplicationMenu(null)` returns early
 * there, lib/browser/api/menu.ts), so macOS gets this minimal menu instead.
 *
 * No item takes a role whose default submenu Electron fills in
 * (`appMenu`, `viewMenu`…): every submenu is written here, so what the menu
 * holds is what this file says. A development build adds Toggle DevTools.
 */
export function applicationMenuTemplate(
  facts: ApplicationMenuFacts,
): MenuItemConstructorOptions[] | null {
  const developer: MenuItemConstructorOptions[] = facts.developmentBuild
    ? [{ label: facts.labels.developer, submenu: [{ role: 'toggleDevTools' }] }]
    : []
  if (facts.platform !== 'darwin') return developer.length > 0 ? developer : null
  return [
    {
      label: facts.appName,
      submenu: [
        { role: 'about' },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit' },
      ],
    },
    {
      // Without an Edit menu, macOS has no copy and paste in text fields.
      label: facts.labels.edit,
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    {
      label: facts.labels.window,
      submenu: [{ role: 'minimize' }, { role: 'close' }],
    },
    ...developer,
  ]
}

/** Replaces Electron's default application menu. Call once the app is
 *  ready, before any window opens: on Windows and Linux a window takes the
 *  application menu current when it is created (lib/browser/api/base-window.ts). */
export function installApplicationMenu(
  menu: Pick<typeof Menu, 'buildFromTemplate' | 'setApplicationMenu'>,
  facts: ApplicationMenuFacts,
): void {
  const template = applicationMenuTemplate(facts)
  menu.setApplicationMenu(template === null ? null : menu.buildFromTemplate(template))
}
