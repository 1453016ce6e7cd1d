import { describe, expect, it } from 'vitest'
import { namesProject, requestedProjects, skippedProjectFails } from './project-request.ts'

describe('which projects a command line names', () => {
  it('reads --project in each of its forms, and nothing from other flags', () => {
    expect(requestedProjects(['node', 'playwright', 'test'])).toEqual([])
    expect(requestedProjects(['test', '--project=electron'])).toEqual(['electron'])
    expect(requestedProjects(['test', '--project', 'cdp', 'electron', '--grep', 'x'])).toEqual([
      'cdp',
      'electron',
    ])
    expect(requestedProjects(['test', '--grep', 'electron', 'electron.spec.ts'])).toEqual([])
  })

  it('matches names as Playwright does: whole name, any case, * as a wildcard', () => {
    expect(namesProject('electron', 'electron')).toBe(true)
    expect(namesProject('Electron', 'electron')).toBe(true)
    expect(namesProject('elec*', 'electron')).toBe(true)
    expect(namesProject('elec', 'electron')).toBe(false)
    expect(namesProject('cdp', 'electron')).toBe(false)
    expect(namesProject('e.ectron', 'electron')).toBe(false)
  })
})

describe('when a skipped project fails the run', () => {
  it.each([
    [['electron'], true, true],
    [['cdp', 'electron'], true, true],
    [['electron'], false, false],
    [[], true, false],
    [['cdp'], true, false],
  ])('requested %j, ASSENT_REQUIRE_ALL=%s: fails %s', (requested, requireAll, fails) => {
    expect(skippedProjectFails({ project: 'electron', requested, requireAll })).toBe(fails)
  })
})
