import { describe, expect, it } from 'vitest'
import { minimumSizeIn, placeInWorkArea } from './window-placement.ts'

const LAPTOP = { x: 0, y: 0, width: 1366, height: 728 }
const SECOND = { x: 1920, y: 0, width: 1280, height: 984 }

describe('placeInWorkArea', () => {
  it('keeps the requested size where it fits, centred over the workbench', () => {
    const workbench = { x: 2000, y: 100, width: 1000, height: 800 }
    expect(placeInWorkArea({ width: 560, height: 680 }, SECOND, workbench)).toEqual({
      x: 2220,
      y: 160,
      width: 560,
      height: 680,
    })
  })

  it('shrinks a window taller than the work area, so its buttons stay above the taskbar', () => {
    const short = { x: 0, y: 0, width: 1280, height: 620 }
    const placed = placeInWorkArea({ width: 560, height: 680 }, short)
    expect(placed.height).toBe(620)
    expect(placed.y).toBe(0)
    expect(placed.y + placed.height).toBeLessThanOrEqual(short.y + short.height)
  })

  it('moves the window inside the work area when the workbench hangs off its edge', () => {
    const workbench = { x: 1100, y: 500, width: 900, height: 700 }
    const placed = placeInWorkArea({ width: 560, height: 680 }, LAPTOP, workbench)
    expect(placed.x + placed.width).toBeLessThanOrEqual(LAPTOP.width)
    expect(placed.y + placed.height).toBeLessThanOrEqual(LAPTOP.height)
    expect(placed.x).toBeGreaterThanOrEqual(0)
    expect(placed.y).toBeGreaterThanOrEqual(0)
  })

  it('centres in the work area when there is no workbench to centre over', () => {
    expect(placeInWorkArea({ width: 566, height: 528 }, LAPTOP)).toEqual({
      x: 400,
      y: 100,
      width: 566,
      height: 528,
    })
  })
})

describe('minimumSizeIn', () => {
  it('never asks for more than the work area holds', () => {
    expect(minimumSizeIn(LAPTOP)).toEqual({ width: 420, height: 480 })
    expect(minimumSizeIn({ x: 0, y: 0, width: 400, height: 300 })).toEqual({
      width: 400,
      height: 300,
    })
  })
})
