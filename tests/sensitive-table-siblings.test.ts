import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  contentOf,
  denyAndSettle,
  EVIL,
  ORIGINAL,
  reviewedApproval,
  turnOutcome,
} from './support/person-only-table.ts'
import { setMode } from './support/policy-helpers.ts'
import { createRoom, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

// The sensitive-path table (sensitive-path-rules.ts) decides two things
// tested here through a real runtime: which reads inside the workspace are
// "private reads" that ask the person (the "read asks" rows), and which
// writes always need a person, so that the approve-for-me reviewer may not
// allow them. Each row below is a well-known sibling of an entry the table
// already has, so the rule's own reasoning covers it.

const SECRET = 'FIXTURE-SECRET-not-a-real-one'

let harness: RuntimeHarness
let workspace: string

beforeAll(async () => {
  harness = await startInProcessRuntime({})
  workspace = join(harness.root, 'gaps')
  await mkdir(workspace, { recursive: true })
})
afterAll(async () => {
  await harness?.close()
})

async function lay(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(workspace, path)), { recursive: true })
  await writeFile(join(workspace, path), text)
}

describe('a read inside the workspace of a file that holds secrets (ask-for-approval)', () => {
  let roomId: string
  beforeAll(async () => {
    roomId = (await createRoom(harness, { workspace })).id
    await lay('.env.production', `API_KEY=${SECRET}\n`)
    await lay('.env-production', `API_KEY=${SECRET}\n`)
    await lay('.env_local', `API_KEY=${SECRET}\n`)
    // direnv: the usual home of a project's exported keys.
    await lay('.envrc', `export AWS_SECRET_ACCESS_KEY=${SECRET}\n`)
    // Cloudflare Wrangler's local secrets, its .env by another name.
    await lay('.dev.vars', `API_TOKEN=${SECRET}\n`)
  })

  it('control: .env.production asks the person (a private read)', async () => {
    const outcome = await turnOutcome(harness, roomId, 'read .env.production')
    expect(outcome.asked?.approval.kind).toBe('read')
    if (outcome.asked) {
      await denyAndSettle(harness, roomId, outcome.turnId, outcome.asked.approval.id)
    }
  })

  it.each(['.env-production', '.env_local', '.envrc', '.dev.vars'])(
    'asks the person before reading %s, rather than handing its secret to the model',
    async (path) => {
      const outcome = await turnOutcome(harness, roomId, `read ${path}`)
      if (outcome.asked) {
        await denyAndSettle(harness, roomId, outcome.turnId, outcome.asked.approval.id)
      } else {
        await turnSettled(harness, roomId, outcome.turnId)
      }
      // Now: it ran unasked and the model was given the secret.
      expect(outcome.call?.result?.output ?? '').not.toContain(SECRET)
      expect(outcome.asked?.approval.kind).toBe('read')
    },
  )
})

describe('the approve-for-me reviewer and files that make code run later', () => {
  let roomId: string
  beforeAll(async () => {
    roomId = (await createRoom(harness, { workspace })).id
    await setMode(harness, roomId, 'approve-for-me')
    for (const path of [
      '.devcontainer/devcontainer.json',
      '.devcontainer.json',
      '.gitea/workflows/ci.yml',
      '.forgejo/workflows/ci.yml',
      '.config/mise/config.toml',
      '.mise/config.toml',
    ]) {
      await lay(path, ORIGINAL)
    }
  })

  async function reviewerOutcome(path: string) {
    const { turnId, approval } = await reviewedApproval(harness, roomId, `write ${path} ${EVIL}`)
    if (approval.status === 'pending') {
      await denyAndSettle(harness, roomId, turnId, approval.id)
    } else {
      await turnSettled(harness, roomId, turnId)
    }
    return { approval, content: await contentOf(workspace, path) }
  }

  it('control: the reviewer does not allow a change to .devcontainer/devcontainer.json', async () => {
    const { approval, content } = await reviewerOutcome('.devcontainer/devcontainer.json')
    expect(approval.status).not.toBe('allowed')
    expect(content).toBe(ORIGINAL)
  })

  it.each([
    // The Dev Containers spec reads .devcontainer.json at the root as well
    // as .devcontainer/devcontainer.json; its initializeCommand runs on the
    // person's machine when the folder is opened.
    '.devcontainer.json',
    // Gitea's and Forgejo's Actions, run on the next push like
    // .github/workflows.
    '.gitea/workflows/ci.yml',
    '.forgejo/workflows/ci.yml',
    // mise reads these as it reads mise.toml and .mise.toml (its hooks,
    // tasks and env run on entering the folder).
    '.config/mise/config.toml',
    '.mise/config.toml',
  ])('does not allow a change to %s in the person’s place', async (path) => {
    const { approval, content } = await reviewerOutcome(path)
    expect({ status: approval.status, decidedBy: approval.decidedBy, content }).not.toEqual({
      status: 'allowed',
      decidedBy: 'agent-review',
      content: EVIL,
    })
    expect(content).toBe(ORIGINAL)
  })
})
