import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { describe, expect, it } from 'vitest'
import { translate } from '../src/common/i18n/index.ts'
import { KNOWN_ACP_SESSION_MODES } from '../src/runtime/external-agents/agent-mode-mapping.ts'
import { REFUSED_SUFFIX } from '../src/runtime/policy/made-person-only.ts'
import { AGENT_WAIT_MS } from './support/external-agent-testbed.ts'
import { addFilePatch } from '../scripts/agents/scripted-model-server.ts'
import {
  ACP_AGENT_ID,
  agentRoom,
  CODEX_AGENT_ID,
  nextApproval,
  turnEnded,
  useAgentRuntime,
} from './support/external-agent-runtime.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import { PERSON_ONLY_MADE } from './support/person-only-made.ts'
import { decide, setMode } from './support/policy-helpers.ts'
import { send } from './support/room-helpers.ts'

/**
 * What an external agent's own process makes in its workspace that only a
 * person may make, where nothing of it was when the turn began, is moved
 * aside as what a command of Assent's makes is, whatever door it used: no
 * request reached Assent for it, so no call's watch saw it. Here the real
 * codex-acp, contained, in a room whose agents.json entry names codex-acp's
 * own `auto` for approve-for-me (a person may), where it runs a command
 * that writes the workspace inside its own sandbox without asking anyone.
 * Only the model is scripted.
 */
const bed = useAgentRuntime({
  acpSessionModes: { ...KNOWN_ACP_SESSION_MODES['codex-acp'], 'approve-for-me': 'auto' },
})
const { agents, inWorkspace } = bed
const bubblewrap = await bubblewrapRequired()

/** The table's rows that need nothing laid in the workspace first. */
const ROWS = PERSON_ONLY_MADE.filter(([name]) =>
  [
    'a repository in a subfolder, whose config names a program git runs',
    'a repository deep down',
    'a link named .git to a folder it made',
    'a git folder under an innocent name (a bare repository)',
    'a hook manager’s folder',
    'a CI workflow',
    'an .envrc',
  ].includes(name),
)

/** What the command writes once it made every row, and must stay. */
const DONE = 'made-done.txt'

describe.skipIf(!agents || !bubblewrap)('what an external agent’s process makes unasked', () => {
  it(
    'codex-acp contained, running a command unasked: each place of the table it made is moved aside, and the room says so',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      expect(ROWS).toHaveLength(7)
      const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
      await setMode(bed.runtime.harness, roomId, 'approve-for-me')
      writeFileSync(
        inWorkspace('make.sh'),
        [...ROWS.map(([, line]) => line), `echo done > ${DONE}`, ''].join('\n'),
      )
      bed.runtime.model.script([
        { type: 'exec', command: 'sh make.sh' },
        { type: 'reply', text: 'done' },
      ])
      const turnId = await send(bed.runtime.harness, roomId, 'go')
      const { timeline } = await turnEnded(bed.runtime, roomId, turnId)
      // Unasked: nothing reached Assent to judge.
      expect(timeline.approvals.filter((each) => each.turnId === turnId)).toHaveLength(0)
      expect(existsSync(inWorkspace(DONE))).toBe(true)

      for (const [name, , moved] of ROWS) {
        for (const place of moved) {
          expect.soft(existsSync(inWorkspace(place)), `${name}: ${place}`).toBe(false)
          const aside = readdirSync(dirname(inWorkspace(place))).filter((entry) =>
            entry.startsWith(`${basename(place)}${REFUSED_SUFFIX}`),
          )
          expect.soft(aside, `${name}: ${place}`).toHaveLength(1)
        }
      }
      const notes = timeline.messages.filter(
        (each) => each.turnId === turnId && each.message?.code === 'external.madePersonOnly',
      )
      expect(notes).toHaveLength(1)
      expect(notes[0]?.text).toContain('sub/.git: moved to')
      expect(notes[0]?.text).toContain('.envrc: moved to')
      expect(translate('zh-CN', 'runtime.external.madePersonOnly')).toContain('只有人才能创建')
    },
  )

  it(
    'Codex contained: a file change the person allowed, shown its path, is left where it wrote, the folder made for it too',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      // Codex's own sandbox, in a workspace holding `.github`, makes empty
      // folders at its top (`.git`, `.aws`) to mount over while it applies
      // a change: nothing the turn must say it made.
      mkdirSync(inWorkspace('.github'), { recursive: true })
      const SHOWN = ['allowed/.envrc', 'allowed/.github/workflows/ci.yml']
      bed.runtime.model.script([
        ...SHOWN.map((path) => ({
          type: 'patch' as const,
          patch: addFilePatch(path, 'on: push\n'),
        })),
        { type: 'reply', text: 'done' },
      ])
      const turnId = await send(bed.runtime.harness, roomId, 'go')
      for (const path of SHOWN) {
        const view = await nextApproval(bed.runtime, roomId, turnId)
        expect(JSON.stringify(view)).toContain(path)
        expect((await decide(bed.runtime.harness, view, 'allow-once')).status).toBe(200)
      }
      const { timeline } = await turnEnded(bed.runtime, roomId, turnId)
      for (const path of SHOWN) expect(existsSync(inWorkspace(path)), path).toBe(true)
      // Nothing the person allowed, nor any empty folder, is named by a
      // note of the turn's.
      expect(
        timeline.messages.filter(
          (each) => each.turnId === turnId && each.message?.code === 'external.madePersonOnly',
        ),
      ).toHaveLength(0)
    },
  )
})
