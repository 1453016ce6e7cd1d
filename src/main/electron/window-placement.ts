/** A rectangle in screen coordinates (DIP), as Electron's `Rectangle`. */
export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

/** The smallest a protected window may be made, where the work area allows:
 *  the buttons and a few lines of the action stay in view. */
export const PROTECTED_MIN_SIZE = { width: 420, height: 480 } as const

/**
 * Where a protected window goes: its requested size, shrunk to fit the work
 * area of the display it opens on (the screen minus taskbar, dock and menu
 * bar, so the buttons are never under them), centred over the window it
 * belongs to (the workbench) or the work area, and moved inside the work
 * area wherever that centre would put part of it outside.
 */
export function placeInWorkArea(
  size: { width: number; height: number },
  workArea: Rect,
  over?: Rect,
): Rect {
  const width = Math.max(1, Math.min(size.width, workArea.width))
  const height = Math.max(1, Math.min(size.height, workArea.height))
  const centre = over ?? workArea
  const x = Math.round(centre.x + (centre.width - width) / 2)
  const y = Math.round(centre.y + (centre.height - height) / 2)
  return {
    x: clamp(x, workArea.x, workArea.x + workArea.width - width),
    y: clamp(y, workArea.y, workArea.y + workArea.height - height),
    width,
    height,
  }
}

/** The minimum size a window may keep in `workArea`: never more than fits. */
export function minimumSizeIn(workArea: Rect): { width: number; height: number } {
  return {
    width: Math.min(PROTECTED_MIN_SIZE.width, workArea.width),
    height: Math.min(PROTECTED_MIN_SIZE.height, workArea.height),
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), Math.max(low, high))
}
