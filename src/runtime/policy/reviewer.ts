import { z } from 'zod'
import type { ToolEffect } from '../../contracts/policy-axes.ts'
import {
  RuntimeMessageSchema,
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'
import { isDestructiveCommand, pipesDownloadToShell } from '../tools/command-patterns.ts'
import { personOnlyReason } from './person-only.ts'
import { sensitivePath } from './sensitive-paths.ts'

/** What the approve-for-me reviewer sees: the call as the runtime will run
 *  it, after the sandbox check resolved its paths. */
export interface ReviewInput {
  toolName: string
  effect: ToolEffect
  destructive: boolean
  arguments: Record<string, unknown>
  workspace: string
  resolvedPaths: string[]
  /** Every resolved path is inside the room's workspace. */
  insideWorkspace: boolean
}

/** `message`: the reason as a code, for the person's language; a reviewer
 *  that words its reasons itself (a model) gives none. */
export type ReviewVerdict = {
  verdict: 'allow' | 'deny' | 'escalate'
  reason: string
  message?: RuntimeMessage
}

export const ReviewVerdictSchema = z.strictObject({
  verdict: z.enum(['allow', 'deny', 'escalate']),
  reason: z.string().min(1).max(2_000),
  message: RuntimeMessageSchema.optional(),
})

/** Port: a model-based reviewer can plug in here. Must never throw to allow:
 *  any failure is read by `reviewFailClosed` as "ask the person", and an
 *  adapter that cannot decide should escalate to the person itself. It
 *  should stop work when `signal` aborts; its answer is ignored after that. */
export interface ActionReviewer {
  review(input: ReviewInput, signal: AbortSignal): Promise<ReviewVerdict>
}

/**
 * The built-in reviewer: allows only what is plainly routine (non-destructive
 * reads and writes inside the workspace), refuses what is plainly harmful,
 * and hands everything else to the person.
 *
 * - deny: recursive deletes; `rm -rf` and other destructive commands;
 *   downloads piped into a shell; any write or delete of what always needs
 *   a person (person-only.ts: credentials, shell start-up files, all of
 *   .git, files that run code later);
 * - allow: non-destructive reads and writes inside the workspace (a read of
 *   a credential file is escalated, not allowed: it would put a secret in
 *   front of the model);
 * - escalate: commands, network calls, anything outside the workspace,
 *   non-recursive deletes.
 */
export class RuleBasedReviewer implements ActionReviewer {
  async review(input: ReviewInput, _signal: AbortSignal): Promise<ReviewVerdict> {
    if (input.effect === 'network') {
      return escalate('network calls are decided by a person', 'review.network')
    }
    if (input.effect === 'execute') return reviewCommand(input)

    const sensitive = firstSensitive(input)
    if (input.effect === 'write') {
      if (input.destructive && input.arguments.recursive === true) {
        return deny('recursive deletes are never approved automatically', 'review.recursiveDelete')
      }
      if (sensitive !== null) {
        return deny(`refused a change to ${sensitive.why}`, 'review.sensitiveChange', {
          path: sensitive.path,
        })
      }
      if (input.destructive) return escalate('deletes are decided by a person', 'review.deletes')
      if (!input.insideWorkspace) {
        return escalate('the write is outside the workspace', 'review.writeOutside')
      }
      return allow('a non-destructive write inside the workspace', 'review.writeInside')
    }

    if (input.destructive) {
      return escalate('a read that declares itself destructive', 'review.destructiveRead')
    }
    if (!input.insideWorkspace) {
      return escalate('the read is outside the workspace', 'review.readOutside')
    }
    if (sensitive !== null) {
      return escalate(`the read would show ${sensitive.why}`, 'review.readSensitive', {
        path: sensitive.path,
      })
    }
    return allow('a read inside the workspace', 'review.readInside')
  }
}

function reviewCommand(input: ReviewInput): ReviewVerdict {
  const argv = input.arguments.argv
  if (!Array.isArray(argv) || !argv.every((a): a is string => typeof a === 'string')) {
    return escalate('the command line could not be read', 'review.unreadableCommand')
  }
  if (pipesDownloadToShell(argv)) {
    return deny(
      'the command pipes a download into a shell, running unreviewed code',
      'review.pipesDownload',
    )
  }
  if (isDestructiveCommand(argv)) {
    return deny(
      'the command is destructive (recursive delete, disk format or raw disk write)',
      'review.destructiveCommand',
    )
  }
  return escalate('commands are decided by a person', 'review.commands')
}

/** For a write: what always needs a person (person-only.ts), which this
 *  reviewer refuses. For a read: a path whose reading shows a secret. Both
 *  the path as asked for and as resolved count: a symlink can hide a
 *  credential file behind an innocent name, and a raw name can reveal one
 *  the resolved path no longer shows. */
function firstSensitive(input: ReviewInput): { path: string; why: string } | null {
  if (input.effect === 'write') {
    const found = personOnlyReason(input)
    return found === null ? null : { path: found.path, why: `${found.path}: ${found.reason}` }
  }
  const raw = input.arguments.path
  const candidates = typeof raw === 'string' ? [raw, ...input.resolvedPaths] : input.resolvedPaths
  for (const candidate of candidates) {
    const found = sensitivePath(candidate)
    if (found?.readAsks === true) return { path: candidate, why: `${candidate}: ${found.reason}` }
  }
  return null
}

type Params = Parameters<typeof message>[1]

function allow(reason: string, code: RuntimeMessageCode, params?: Params): ReviewVerdict {
  return { verdict: 'allow', reason, message: message(code, params) }
}
function deny(reason: string, code: RuntimeMessageCode, params?: Params): ReviewVerdict {
  return { verdict: 'deny', reason, message: message(code, params) }
}
function escalate(reason: string, code: RuntimeMessageCode, params?: Params): ReviewVerdict {
  return { verdict: 'escalate', reason, message: message(code, params) }
}

/** Timers as a port, so tests can fire the timeout deterministically. */
export interface ReviewTimers {
  set(fn: () => void, ms: number): unknown
  clear(handle: unknown): void
}

const REAL_TIMERS: ReviewTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

export const REVIEW_FAILED_PREFIX = 'automatic review failed: '

/** A verdict, and whether it stands for a reviewer that failed to give one
 *  (so the audit log can tell a failure from a judgement). */
export type ReviewOutcome = ReviewVerdict & { failed: boolean }

/**
 * Runs a reviewer and turns every way it can fail into an escalation to the
 * person: it threw, it did not answer within `timeoutMs` (its signal is then
 * aborted), or it answered something that is not exactly a verdict.
 *
 * Fails closed because approve-for-me means the person delegated routine
 * allows, not their judgement: a reviewer that cannot give a clear answer
 * has not reviewed anything, so silence or garbage is never consent. Nor is
 * it a refusal in the person's name: the action goes to the person, who
 * decides it in the protected window as under ask-for-approval, with the
 * failure as the escalation's reason.
 */
export async function reviewFailClosed(
  reviewer: ActionReviewer,
  input: ReviewInput,
  timeoutMs: number,
  timers: ReviewTimers = REAL_TIMERS,
): Promise<ReviewOutcome> {
  const controller = new AbortController()
  let handle: unknown
  const timedOut = new Promise<'timeout'>((resolve) => {
    handle = timers.set(() => {
      controller.abort()
      resolve('timeout')
    }, timeoutMs)
  })
  try {
    const answer = await Promise.race([
      Promise.resolve().then(() => reviewer.review(input, controller.signal)),
      timedOut,
    ])
    if (answer === 'timeout') return failed(`no answer within ${timeoutMs} ms`)
    const parsed = ReviewVerdictSchema.safeParse(answer)
    if (!parsed.success) return failed('the reviewer returned something that is not a verdict')
    return { ...parsed.data, failed: false }
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error))
  } finally {
    timers.clear(handle)
  }
}

/** Reasons are stored and shown; a reviewer's error text is bounded so a
 *  runaway message cannot bloat the audit log. */
const MAX_FAILURE_DETAIL_CHARS = 500

function failed(why: string): ReviewOutcome {
  const detail = why.slice(0, MAX_FAILURE_DETAIL_CHARS)
  return {
    verdict: 'escalate',
    reason: `${REVIEW_FAILED_PREFIX}${detail}`,
    message: message('review.failed', { detail }),
    failed: true,
  }
}
