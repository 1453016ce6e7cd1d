import { describe, expect, it } from 'vitest'
import { findDebugSwitches, refusedDebugSwitches, type CommandLineFacts } from './debug-switches.ts'

const APP = ['/opt/Assent/assent']

function facts(argv: string[], overrides: Partial<CommandLineFacts> = {}): CommandLineFacts {
  return { argv: [...APP, ...argv], hasSwitch: () => false, platform: 'linux', ...overrides }
}

describe('findDebugSwitches', () => {
  it('finds the remote debugging switches with and without a value', () => {
    for (const argv of [
      ['--remote-debugging-port=9222'],
      ['--remote-debugging-port', '9222'],
      ['--remote-debugging-port'],
      ['--remote-debugging-pipe'],
      ['-remote-debugging-port=0'],
      ['--REMOTE-DEBUGGING-PORT=9222'],
    ]) {
      expect(findDebugSwitches(facts(argv)), argv.join(' ')).toEqual([argv[0]])
    }
  })

  it('finds every form of the Node inspector switches', () => {
    for (const arg of [
      '--inspect',
      '--inspect=9229',
      '--inspect=0.0.0.0:9229',
      '--inspect-brk',
      '--inspect-brk=9229',
      '--inspect-port=9229',
      '--inspect-port',
      '--inspect-wait',
      '--inspect-publish-uid=http',
      '-inspect',
    ]) {
      expect(findDebugSwitches(facts([arg])), arg).toEqual([arg])
    }
  })

  it('finds a switch anywhere in argv, after other arguments or a bare --', () => {
    expect(findDebugSwitches(facts(['--lang=zh-CN', '.', '--', '--inspect']))).toEqual([
      '--inspect',
    ])
  })

  it('finds switches appended in code through app.commandLine', () => {
    const hasSwitch = (name: string) => name === 'remote-debugging-port'
    expect(findDebugSwitches(facts([], { hasSwitch }))).toEqual(['--remote-debugging-port'])
  })

  it('reports a switch seen both ways once', () => {
    const hasSwitch = (name: string) => name === 'inspect'
    expect(findDebugSwitches(facts(['--inspect=9229'], { hasSwitch }))).toEqual(['--inspect=9229'])
  })

  it('reads /name as a switch on Windows only', () => {
    expect(
      findDebugSwitches(facts(['/remote-debugging-port=9222'], { platform: 'win32' })),
    ).toEqual(['/remote-debugging-port=9222'])
    expect(findDebugSwitches(facts(['/inspect-files/readme.md']))).toEqual([])
  })

  it('treats any --inspect* name as the inspector, including future ones', () => {
    expect(findDebugSwitches(facts(['--inspector-next=1']))).toEqual(['--inspector-next=1'])
  })

  it('leaves ordinary switches and arguments alone', () => {
    expect(
      findDebugSwitches(
        facts(['--lang=en', '--enable-logging', '--remote-debugging', 'inspect', '-', '--']),
      ),
    ).toEqual([])
  })
})

describe('refusedDebugSwitches', () => {
  it('stops a release build with a debugging switch, naming it', () => {
    expect(
      refusedDebugSwitches({
        ...facts(['--remote-debugging-port=9222', '--inspect=0']),
        developmentBuild: false,
      }),
    ).toEqual(['--remote-debugging-port=9222', '--inspect=0'])
  })

  it('stops a release build started outside the sandbox or with V8 flags, whatever the form', () => {
    expect(
      refusedDebugSwitches({
        ...facts(['--no-sandbox', '-disable-gpu-sandbox', '--js-flags=--no-opt']),
        developmentBuild: false,
      }),
    ).toEqual(['--no-sandbox', '-disable-gpu-sandbox', '--js-flags=--no-opt'])
    expect(
      refusedDebugSwitches({
        argv: [],
        hasSwitch: (name) => name === 'no-sandbox',
        platform: 'linux',
        developmentBuild: false,
      }),
    ).toEqual(['--no-sandbox'])
  })

  it('lets a release build without debugging switches start', () => {
    expect(refusedDebugSwitches({ ...facts(['--lang=en']), developmentBuild: false })).toEqual([])
  })

  it('lets a development build start with them (the smoke scenario attaches over CDP)', () => {
    expect(
      refusedDebugSwitches({
        ...facts(['--inspect', '--remote-debugging-port=0']),
        developmentBuild: true,
      }),
    ).toEqual([])
  })
})
