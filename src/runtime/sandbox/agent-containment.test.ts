import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { startAgentProcess } from '../external-agents/agent-process.ts'
import {
  AGENT_UID_UNDER_ROOT,
  AgentContainment,
  agentBwrapArgs,
  agentOwnPlaces,
} from './agent-containment.ts'
import type { SandboxAvailability } from './sandbox-probe.ts'

const HAS_BWRAP = await bubblewrapRequired()

let root: string
let home: string
let workspace: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-agent-contained-')))
  home = join(root, 'home')
  workspace = join(root, 'workspace')
  mkdirSync(join(home, '.ssh'), { recursive: true })
  mkdirSync(workspace)
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'THE-KEY\n')
  writeFileSync(join(home, '.netrc'), 'machine x password THE-NETRC\n')
})

afterEach(() => rmSync(root, { recursive: true, force: true }))

const containment = (probe: SandboxAvailability, allowUncontained = false) =>
  new AgentContainment({
    env: { HOME: home, PATH: process.env.PATH },
    assentPrivate: [],
    allowUncontained,
    probe: async () => probe,
  })
const request = () => ({ workspace, agentEnv: { HOME: join(root, 'agent-home') } })

describe('AgentContainment: where no bubblewrap can start', () => {
  const missing: SandboxAvailability = { available: false, missing: 'no bwrap', fix: 'install it' }

  it('does not start the agent, and says why and how to fix it', async () => {
    await expect(containment(missing).wrapFor(request())).resolves.toEqual({
      ok: false,
      reason:
        'no sandbox can start here to hide your keys from the agent: no bwrap; to fix it, install it',
    })
  })

  it('starts it as it is only under the uncontained setting, or on macOS', async () => {
    await expect(containment(missing, true).wrapFor(request())).resolves.toEqual({
      ok: true,
      wrap: null,
    })
    const seatbelt: SandboxAvailability = { available: true, kind: 'seatbelt', program: 'x' }
    await expect(containment(seatbelt).wrapFor(request())).resolves.toEqual({
      ok: true,
      wrap: null,
    })
  })
})

describe('AgentContainment: a workspace it cannot keep', () => {
  const bubblewrap: SandboxAvailability = {
    available: true,
    kind: 'bubblewrap',
    program: 'bwrap',
    seccompFilter: Buffer.alloc(0),
  }

  it("does not start the agent in a workspace inside a git folder, where all is git's", async () => {
    workspace = join(root, 'repo', '.git', 'inner')
    mkdirSync(join(root, 'repo', '.git', 'hooks'), { recursive: true })
    mkdirSync(workspace)
    writeFileSync(join(root, 'repo', '.git', 'HEAD'), 'ref: refs/heads/main\n')
    writeFileSync(join(root, 'repo', '.git', 'config'), '[core]\n')
    mkdirSync(join(root, 'repo', '.git', 'objects'))
    mkdirSync(join(root, 'repo', '.git', 'refs'))
    const answer = await containment(bubblewrap).wrapFor(request())
    expect(answer.ok).toBe(false)
  })
})

describe('agentBwrapArgs', () => {
  const hidden = [
    { path: '/h/.ssh', kind: 'folder' as const },
    { path: '/h/.netrc', kind: 'file' as const },
    { path: '/h/.codex/auth.json', kind: 'file' as const },
  ]

  it('hides each place, a folder empty and a file empty, but what the agent keeps of its own', () => {
    const args = agentBwrapArgs(
      { hidden, own: ['/h/.codex'], workspace: '/w', readOnlyInside: ['/w/.git'] },
      1000,
    )
    expect(args.join(' ')).toContain('--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp')
    expect(args.join(' ')).toContain('--bind /w /w --ro-bind /w/.git /w/.git')
    expect(args.join(' ')).toContain('--tmpfs /h/.ssh --remount-ro /h/.ssh')
    expect(args.join(' ')).toContain('--seccomp 3')
    expect(args.join(' ')).toContain('--ro-bind /dev/null /h/.netrc')
    expect(args).not.toContain('/h/.codex/auth.json')
    expect(args.slice(-3)).toEqual(['--chdir', '/w', '--'])
    expect(args).not.toContain('--uid')
  })

  it('runs the agent as an ordinary user in its namespace when the runtime is root', () => {
    const args = agentBwrapArgs({ hidden: [], own: [], workspace: '/w', readOnlyInside: [] }, 0)
    expect(args.slice(0, 5)).toEqual([
      '--unshare-user',
      '--uid',
      String(AGENT_UID_UNDER_ROOT),
      '--gid',
      String(AGENT_UID_UNDER_ROOT),
    ])
  })

  it("keeps the agent's own settings: Codex's home, Claude's", () => {
    expect(agentOwnPlaces({ HOME: '/a', CODEX_HOME: 'c' }, '/w')).toEqual([
      '/w/c',
      '/a/.claude',
      '/a/.claude.json',
    ])
    expect(agentOwnPlaces({ HOME: '/a', CLAUDE_CONFIG_DIR: '/cc' }, '/w')).toEqual([
      '/a/.codex',
      '/a/.claude',
      '/a/.claude.json',
      '/cc',
    ])
  })
})

describe.skipIf(!HAS_BWRAP)('an agent started in its containment (real bubblewrap)', () => {
  it("reads none of the person's keys, writes its workspace, sees none of the runtime's processes, and ends with stop()", async () => {
    const real = new AgentContainment({
      env: { HOME: home, PATH: process.env.PATH },
      assentPrivate: [],
      allowUncontained: false,
    })
    const answer = await real.wrapFor(request())
    if (!answer.ok || answer.wrap === null) throw new Error('no wrap')
    const script = [
      `cat ${home}/.ssh/id_ed25519 2>&1 || true`,
      `cat ${home}/.netrc`,
      'echo written > made.txt',
      `test -e /proc/${process.pid} && echo sees-runtime || echo no-runtime`,
      'echo ready',
      'exec sleep 600',
    ].join('; ')
    const agent = startAgentProcess(
      { command: 'sh', args: ['-c', script], pass_env: [], set_env: {} },
      workspace,
      { PATH: process.env.PATH },
      answer.wrap,
    )
    let out = ''
    await new Promise<void>((resolve, reject) => {
      agent.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('ready')) resolve()
      })
      void agent.exited.then(() => reject(new Error(`exited early: ${out}${agent.stderrTail()}`)))
    })
    expect(out).toMatch(/id_ed25519: No such file or directory/)
    expect(out).not.toMatch(/THE-KEY|THE-NETRC/)
    expect(out).toContain('no-runtime')
    expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('written\n')
    // The group is signalled through bubblewrap: the agent's `sleep` ends.
    const exit = await agent.stop()
    expect(exit.code !== 0 || exit.signal !== null).toBe(true)
  })
})
