import type { DecisionResult } from '../../client/index.js';
import { batchAnswerOf, describeResolution, outcomeOf, type BatchDecision } from '../../kinds/index.js';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { StoredResolution } from '../../types.js';
import type { ActionView } from '../../views.js';
import { describeResolver } from './transcript.js';

/*
 * Approve all / Deny all of the inboxes (the console's and the terminal's, docs/console.md and
 * docs/terminal-inbox.md): what a batch will send and run before it is sent, and how each answer went after
 * (`POST /api/inbox/decisions`). Each kind says what it takes in a batch (its presentation's `batch`).
 */

export type { BatchDecision } from '../../kinds/index.js';

/** One answer a batch will send, and what runs once it is sent (a tool and its arguments), if anything. */
export interface BatchItem {
  action: ActionView;
  answer: ResolutionInput;
  runs?: string;
}

/** What a batch will send, and the requests it leaves out with why. */
export interface BatchPlan {
  decision: BatchDecision;
  send: BatchItem[];
  leftOut: Array<{ action: ActionView; reason: string }>;
}

/** The answers Approve all or Deny all sends for the `selected` requests, in their order, and those left out. */
export function planBatch(selected: ActionView[], decision: BatchDecision): BatchPlan {
  const plan: BatchPlan = { decision, send: [], leftOut: [] };
  for (const action of selected) {
    const answer = batchAnswerOf(action, decision);
    if ('refused' in answer) plan.leftOut.push({ action, reason: answer.refused });
    else
      plan.send.push({
        action,
        answer: answer.answer as ResolutionInput,
        ...(answer.runs ? { runs: answer.runs } : {}),
      });
  }
  return plan;
}

/** How one answer of a batch went, in words: `settled` (the answer was taken), `answered` before (or lapsed), `refused`. */
export interface BatchOutcome {
  action: ActionView;
  state: 'settled' | 'answered' | 'refused';
  text: string;
}

const LAPSED = 'Lapsed: nobody answered in time';

/** How the answer `item` sent went, from its result (`me`, the signed-in user, reads as "you"). */
export function batchOutcome(item: BatchItem, result: DecisionResult | undefined, me?: string | null): BatchOutcome {
  const { action } = item;
  if (!result) return { action, state: 'refused', text: 'Refused: the server gave no answer for it.' };
  if (result.status === 200) {
    return {
      action,
      state: 'settled',
      text: `Settled: ${outcomeOf(action, item.answer as unknown as StoredResolution)}`,
    };
  }
  const error = errorOf(result.body);
  if (error?.code === 'action_expired') return { action, state: 'answered', text: LAPSED };
  if (error?.code === 'action_not_pending') {
    const details = error.details ?? {};
    const settled = {
      ...action,
      status: (typeof details.status === 'string' ? details.status : 'resolved') as ActionView['status'],
      channel: (typeof details.channel === 'string' ? details.channel : undefined) as ActionView['channel'],
      resolvedBy: typeof details.resolvedBy === 'string' ? details.resolvedBy : null,
      resolution: details.resolution as StoredResolution | undefined,
    } as ActionView;
    const how = describeResolution(settled);
    // A lapse is nobody's answer: said as itself, never as a decision someone took.
    if (how === LAPSED) return { action, state: 'answered', text: LAPSED };
    return { action, state: 'answered', text: `Already answered by ${describeResolver(settled, me)}: ${how}` };
  }
  return { action, state: 'refused', text: `Refused: ${error?.message ?? `the server answered ${result.status}.`}` };
}

function errorOf(body: unknown): { code?: string; message?: string; details?: Record<string, unknown> } | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const error = (body as { error: unknown }).error;
  return typeof error === 'object' && error !== null ? (error as ReturnType<typeof errorOf>) : undefined;
}
