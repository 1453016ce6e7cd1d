import { describe, expect, it } from 'vitest'
import { refusedDebugSwitches } from './debug-switches.ts'

// A release build must refuse to start with a switch
// that attaches a debugger or takes a sandbox down (docs/architecture.md §3:
// "Release builds refuse remote debugging and inspector switches and the
// switches that weaken the sandbox or V8"; debug-switches.ts: "a shortcut
// with one of them must not start quietly weaker"). Each below is read
// by Chromium's content layer, which Electron runs unchanged
// (content/public/common/content_switches.cc):
// - `--single-process`: "Runs the renderer and plugins in the same process
//   as the browser" (RenderProcessHost::SetRunRendererInProcess): no renderer
//   sandbox at all, every page is code in the browser process;
// - `--disable-seccomp-filter-sandbox`: Linux renderers without seccomp-bpf;
// - `--in-process-gpu`: the GPU process in the browser process (the GPU
//   sandbox, like `--disable-gpu-sandbox`, is gone);
// - `--renderer-cmd-prefix`, `--utility-cmd-prefix`, `--gpu-launcher`:
//   "prepended to the … process command line. Useful values might be
//   'valgrind' or 'xterm -e gdb --args'": a debugger (or any wrapper) around
//   the renderers, or around the utility process, which on Electron is the
//   runtime (utilityProcess.fork) holding the bearer token and consent key.
//
// The function under test is the one src/main/index.ts calls before 'ready'
// (startupRefusal), with the facts it passes.

const EXE = '/opt/Assent/assent'

function releaseRefusal(args: string[]): string[] {
  return refusedDebugSwitches({
    argv: [EXE, ...args],
    hasSwitch: () => false,
    platform: 'linux',
    developmentBuild: false,
  })
}

describe('a release build refuses every switch that debugs it or takes its sandbox down', () => {
  it('control: --no-sandbox is refused (the rig reaches the real check)', () => {
    expect(releaseRefusal(['--no-sandbox'])).toEqual(['--no-sandbox'])
  })

  it.each([
    ['--single-process'],
    ['--disable-seccomp-filter-sandbox'],
    ['--in-process-gpu'],
    ['--renderer-cmd-prefix=xterm -e gdb --args'],
    ['--utility-cmd-prefix=gdb -batch -ex run --args'],
    ['--gpu-launcher=gdb --args'],
  ])('refuses %s', (arg) => {
    expect(releaseRefusal([arg])).toEqual([arg])
  })
})
