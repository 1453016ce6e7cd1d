import { describe, expect, it } from 'vitest'
import {
  namesProject,
  requestedGrep,
  requestedProjects,
  runNeedsRealAgents,
  skippedProjectFailure,
} from './project-request.ts'

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
  const named = /requested by name and ASSENT_REQUIRE_ALL=1 forbids skipping it/
  const unnamed = /ASSENT_REQUIRE_ALL=1 forbids skipping the electron project; name the projects/
  it.each([
    [['electron'], true, named],
    [['cdp', 'electron'], true, named],
    [['electron'], false, undefined],
    [[], true, unnamed],
    [['cdp'], true, unnamed],
    [[], false, undefined],
  ])('requested %j, ASSENT_REQUIRE_ALL=%s: fails with %s', (requested, requireAll, failure) => {
    const verdict = skippedProjectFailure({ project: 'electron', requested, requireAll })
    if (failure === undefined) expect(verdict).toBeUndefined()
    else expect(verdict).toMatch(failure)
  })
})

describe('whether a run needs the real agents installed', () => {
  const cases = [
    { id: 'approve-write', title: 'a write asks' },
    { id: 'claude-acp-edit', title: 'Claude asks', needs: 'real-agents' as const },
  ]

  it('reads the last --grep in each of its forms', () => {
    expect(requestedGrep(['test'])).toBeUndefined()
    expect(requestedGrep(['test', '--grep', 'a', '-g', 'b'])?.source).toBe('b')
    expect(requestedGrep(['test', '--grep=claude'])?.source).toBe('claude')
  })

  it('installs them only when a selected case needs them', () => {
    expect(runNeedsRealAgents(['test'], cases)).toBe(true)
    expect(runNeedsRealAgents(['test', '--grep', 'claude-acp-edit'], cases)).toBe(true)
    expect(runNeedsRealAgents(['test', '--grep', 'approve-write'], cases)).toBe(false)
    expect(runNeedsRealAgents(['test'], cases.slice(0, 1))).toBe(false)
  })
})
