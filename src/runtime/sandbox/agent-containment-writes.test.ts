import { execFileSync, spawn } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type Server } from 'node:net'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import type { AgentWrap } from '../domain/agent-containment-port.ts'
import { startAgentProcess } from '../external-agents/agent-process.ts'
import { AgentContainment } from './agent-containment.ts'

/**
 * What a contained agent's own process writes unasked (a prompt-injected
 * agent runs any code it likes there), in real bubblewrap, on a throwaway
 * home: nothing that git, the person's shell or Assent would run later
 * with nobody asked, in the person's home, another room's repository or
 * its own; and it still writes its workspace and its own settings.
 */
const HAS_BWRAP = await bubblewrapRequired()

/** io_uring_setup, add_key and keyctl on this machine. */
const [IO_URING_SETUP, ADD_KEY, KEYCTL] =
  process.arch === 'arm64' ? [425, 217, 219] : [425, 248, 250]

const outsideTmp = existsSync('/var/tmp') ? '/var/tmp' : homedir()
let root: string
let personTmp: string
let home: string
let workspace: string
let otherRoom: string
let dataDir: string
let wrap: AgentWrap
let sockets: Server[]
let socketPath: string
/** A socket of the person's in their home (a password manager's SSH
 *  agent keeps one there), and one in the abstract namespace (an X
 *  server's, a session bus's), which the agent's network namespace
 *  shares. */
let homeSocket: string
const ABSTRACT = `\0assent-agent-test-${process.pid}`

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' })

beforeAll(async () => {
  // Outside the system's temporary folder, which the agent sees as an
  // empty one of its own: the home and the rooms there would be out of
  // its reach whatever else held them.
  root = realpathSync(mkdtempSync(join(outsideTmp, 'assent-agent-writes-')))
  personTmp = realpathSync(mkdtempSync(join(tmpdir(), 'assent-agent-writes-')))
  home = join(root, 'home')
  workspace = join(root, 'workspace')
  otherRoom = join(root, 'other-room')
  dataDir = join(root, 'config', 'assent')
  for (const folder of [
    join(home, '.config', 'git'),
    join(home, '.codex'),
    workspace,
    otherRoom,
    dataDir,
  ]) {
    mkdirSync(folder, { recursive: true })
  }
  writeFileSync(join(home, '.bashrc'), "# the person's\n")
  writeFileSync(join(home, '.profile'), "# the person's\n")
  git(workspace, 'init', '-q')
  git(otherRoom, 'init', '-q')
  // A socket of the person's under /tmp, as ssh-agent keeps one.
  socketPath = join(personTmp, 'ssh-agent.sock')
  homeSocket = join(home, 'agent.sock')
  sockets = await Promise.all(
    [socketPath, homeSocket, ABSTRACT].map(
      (at) =>
        new Promise<Server>((resolve) => {
          const server = createServer((socket) => socket.end('AGENT-SOCKET-ANSWERED\n'))
          server.listen(at, () => resolve(server))
        }),
    ),
  )
  const containment = new AgentContainment({
    env: { HOME: home, PATH: process.env.PATH },
    assentPrivate: [dataDir],
    allowUncontained: false,
  })
  const answer = await containment.wrapFor({ workspace, agentEnv: { HOME: home } })
  if (answer.ok && answer.wrap !== null) wrap = answer.wrap
})

afterAll(async () => {
  await Promise.all(
    sockets.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  )
  rmSync(root, { recursive: true, force: true })
  rmSync(personTmp, { recursive: true, force: true })
})

/** `script` run by sh as the agent's process, started as the runtime
 *  starts an agent in its containment; not synchronously, so the sockets
 *  above can answer it. */
async function asTheAgent(script: string): Promise<string> {
  const agent = startAgentProcess(
    { command: 'sh', args: ['-c', script], pass_env: [], set_env: {} },
    workspace,
    { PATH: process.env.PATH, HOME: home },
    wrap,
  )
  let out = ''
  agent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  await agent.exited
  return out + agent.stderrTail()
}

/** Each a place something later runs from, and the line that would be run. */
const LATER = [
  ["the person's git config (absent)", () => join(home, '.gitconfig')],
  ["the person's git config under ~/.config", () => join(home, '.config', 'git', 'config')],
  ["the person's shell start-up file", () => join(home, '.bashrc')],
  ["the person's login profile", () => join(home, '.profile')],
  ['a start-up file the person has not made', () => join(home, '.bash_profile')],
  ["the person's npm settings (absent)", () => join(home, '.npmrc')],
  ["another room's repository config", () => join(otherRoom, '.git', 'config')],
  ["another room's hook", () => join(otherRoom, '.git', 'hooks', 'pre-commit')],
  ["its own repository's config", () => join(workspace, '.git', 'config')],
  ["its own repository's hook", () => join(workspace, '.git', 'hooks', 'post-checkout')],
  ['a common folder its repository would read', () => join(workspace, '.git', 'commondir')],
  ["Assent's data folder", () => join(dataDir, 'agents.json')],
] as const

describe.skipIf(!HAS_BWRAP)('what a contained agent writes unasked (real bubblewrap)', () => {
  it.each(LATER)('does not write %s', async (_name, place) => {
    const file = place()
    const before = existsSync(file) ? readFileSync(file, 'utf8') : null
    await asTheAgent(
      `mkdir -p "$(dirname '${file}')"; echo '[core] hooksPath = /tmp/evil' >> '${file}'`,
    )
    expect(existsSync(file) ? readFileSync(file, 'utf8') : null).toBe(before)
  })

  it("reaches no socket of the person's under /tmp, and what it leaves in /tmp stays its own", async () => {
    const out = await asTheAgent(
      `node -e "require('net').connect('${socketPath}').on('data',d=>process.stdout.write(d)).on('error',e=>console.log(e.code))"; echo left > /tmp/agent-left-${process.pid}`,
    )
    expect(out).toMatch(/ENOENT|EACCES/)
    expect(out).not.toContain('AGENT-SOCKET-ANSWERED')
    expect(existsSync(join(tmpdir(), `agent-left-${process.pid}`))).toBe(false)
  })

  it("does not put a data folder of its own where Assent's is, by a folder above it renamed", async () => {
    await asTheAgent(
      `mv '${join(root, 'config')}' '${join(root, 'config-moved')}'; mkdir -p '${dataDir}' && echo '{}' > '${join(dataDir, 'agents.json')}'`,
    )
    expect(existsSync(join(root, 'config-moved'))).toBe(false)
    expect(existsSync(join(dataDir, 'agents.json'))).toBe(false)
  })

  it.each([
    ['in the home folder', () => homeSocket],
    ['in the abstract namespace', () => ABSTRACT],
  ])("reaches no socket of the person's %s", async (_name, at) => {
    const name = JSON.stringify(at())
    const out = await asTheAgent(
      `node -e 'require("net").connect(${name}).on("data",d=>process.stdout.write(d)).on("error",e=>console.log(e.code))'`,
    )
    expect(out).toContain('EACCES')
    expect(out).not.toContain('AGENT-SOCKET-ANSWERED')
  })

  // Run by root, the agent's user is root outside its namespace, and a
  // kernel setting takes its owner's write bit: `kernel/core_pattern`
  // names a program the kernel runs as root at the next crash. A harmless
  // setting stands for it, put back if the containment ever lets it by.
  it("does not change the machine's kernel settings", async () => {
    const setting = '/proc/sys/kernel/printk_ratelimit'
    const before = readFileSync(setting, 'utf8').trim()
    try {
      await asTheAgent(`echo ${Number(before) + 1} > ${setting}`)
      expect(readFileSync(setting, 'utf8').trim()).toBe(before)
    } finally {
      if (readFileSync(setting, 'utf8').trim() !== before) writeFileSync(setting, before)
    }
  })

  it('makes no io_uring, which makes and connects sockets past the filter', async () => {
    const call = `my $p = "\\0" x 120; my $fd = syscall(${IO_URING_SETUP}, 8, $p); print $fd < 0 ? "refused: " . ($! + 0) : "ring $fd"`
    const out = await asTheAgent(`perl -e '${call}'`)
    expect(out).toContain('refused: 1')
  })

  it("reads no key of the runtime's session keyring", async () => {
    // The runtime's side: a session keyring of its own with a key in it,
    // which the agent started from it inherits.
    const outer = `syscall(${KEYCTL}, 1, 0); my ($t, $d, $p) = ("user", "assent-agent-test", "KEYRING-SECRET"); syscall(${ADD_KEY}, $t, $d, $p, 14, -3) > 0 or die "no key: $!"; exec(@ARGV) or die`
    const inner = `my ($t, $d) = ("user", "assent-agent-test"); my $s = syscall(${KEYCTL}, 10, -3, $t, $d, 0); if ($s < 0) { print "refused: " . ($! + 0); exit } my $b = "\\0" x 64; my $n = syscall(${KEYCTL}, 11, $s, $b, 64); print substr($b, 0, $n)`
    const child = spawn('perl', ['-e', outer, wrap.program, ...wrap.args, 'perl', '-e', inner], {
      cwd: workspace,
      env: { PATH: process.env.PATH, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    })
    // bubblewrap reads its filter here, as the agent's start gives it.
    const filter = child.stdio[3]
    if (filter === null || filter === undefined || !('end' in filter)) throw new Error('no pipe')
    filter.end(wrap.descriptor3)
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()))
    await new Promise((resolve) => child.on('close', resolve))
    expect(out).not.toContain('KEYRING-SECRET')
    expect(out).toContain('refused: 1')
  })

  it('still writes its workspace and its own settings', async () => {
    await asTheAgent(`echo made > made.txt; echo token > '${join(home, '.codex', 'auth.json')}'`)
    expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('made\n')
    expect(readFileSync(join(home, '.codex', 'auth.json'), 'utf8')).toBe('token\n')
  })
})
