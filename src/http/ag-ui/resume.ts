import type { Caller } from '../../caller.js';
import { HeedError } from '../../errors.js';
import type { HeedHooks } from '../../hooks.js';
import { kindOf } from '../../kinds/index.js';
import { sameJson } from '../../kinds/approved-args.js';
import type { ActionRecord, StoredResolution } from '../../types.js';

/** One entry of `RunAgentInput.resume`, as @ag-ui/core's schema let it through. */
export interface ResumeEntry {
  interruptId: string;
  status: 'resolved' | 'cancelled';
  payload?: unknown;
}

/** An answer to settle: the action and the resolution its resume entry stands for. */
export interface PlannedAnswer {
  action: ActionRecord;
  resolution: Record<string, unknown>;
}

/**
 * Checks a resume against the thread's actions before anything is settled, by AG-UI's rules
 * (docs/ag-ui.md): every open interrupt answered, each answer one its kind takes from this caller, none
 * past its `expiresAt`. An entry for an action already settled the same way is a replay and settles
 * nothing; one settled otherwise is refused, saying who answered. Throws the refusal; nothing is recorded.
 */
export async function planResume(
  host: HeedHooks,
  caller: Caller,
  /** The agent whose action it is: the thread's, or a child's for a request the thread lists from its child. */
  agentOf: (action: ActionRecord) => string,
  actions: ActionRecord[],
  entries: ResumeEntry[],
): Promise<PlannedAnswer[]> {
  const byId = new Map(actions.map((action) => [action.id, action]));
  const named = new Set<string>();
  for (const entry of entries) {
    if (named.has(entry.interruptId)) {
      throw new HeedError('invalid_request', `The resume answers the interrupt ${entry.interruptId} twice.`, {
        details: { field: 'body.resume', interruptId: entry.interruptId },
      });
    }
    named.add(entry.interruptId);
    if (!byId.has(entry.interruptId)) {
      throw new HeedError(
        'invalid_request',
        `The resume answers an interrupt this thread does not have (${entry.interruptId}).`,
        { details: { field: 'body.resume', interruptId: entry.interruptId } },
      );
    }
  }
  const open = actions.filter((action) => action.status === 'pending');
  const missing = open.filter((action) => !named.has(action.id)).map((action) => action.id);
  if (missing.length > 0) {
    throw new HeedError(
      'action_pending',
      `A resume must answer every open interrupt of the thread at once; it leaves ${missing.join(', ')} unanswered.`,
      { details: { pendingActionIds: missing } },
    );
  }

  const now = host.now();
  const planned: PlannedAnswer[] = [];
  for (const entry of entries) {
    const action = byId.get(entry.interruptId)!;
    const resolution = kindOf(action.kind).agUi.answerFromResume(entry.status, entry.payload);
    if (action.status === 'expired' || (action.status === 'pending' && action.expiresAt && action.expiresAt <= now)) {
      throw new HeedError(
        'action_expired',
        `The interrupt ${action.id} expired${action.expiresAt ? ` at ${action.expiresAt}` : ''} and can no longer be answered.`,
        { details: { actionId: action.id, expiresAt: action.expiresAt } },
      );
    }
    if (action.status === 'pending') {
      await host.checkAnswer(agentOf(action), action, resolution, caller);
      planned.push({ action, resolution });
      continue;
    }
    await checkReplay(host, caller, agentOf(action), action, resolution);
  }
  return planned;
}

/**
 * An answer to an action settled already: a replay of the same answer changes nothing (resolves); any other
 * answer came too late (throws, saying who answered).
 */
export async function checkReplay(
  host: HeedHooks,
  caller: Caller,
  agent: string,
  action: ActionRecord,
  resolution: Record<string, unknown>,
): Promise<void> {
  let stored: StoredResolution | undefined;
  try {
    stored = await host.checkAnswer(agent, { ...action, status: 'pending' }, resolution, caller);
  } catch {
    stored = undefined;
  }
  if (stored === undefined || !sameAnswer(stored, action.resolution)) throw answeredElsewhere(action);
}

/** Whether two stored answers say the same (a remembered allow is still the allow it was). */
function sameAnswer(sent: StoredResolution, stored: StoredResolution | null): boolean {
  return stored !== null && sameJson(sent, stored);
}

/** The refusal for an answer to an action someone settled otherwise, saying who and how. */
export function answeredElsewhere(action: {
  id: string;
  kind: ActionRecord['kind'];
  status: string;
  resolution: StoredResolution | null;
  resolvedBy: string | null;
  channel: string | null;
}): HeedError {
  // How first: a lapse is recorded as `system:timeout` with channel `timeout`, never as a person's answer.
  const who =
    action.channel === 'timeout'
      ? 'by its timeout'
      : action.resolvedBy !== null
        ? `by ${action.resolvedBy}`
        : action.channel
          ? `through ${action.channel}`
          : 'elsewhere';
  const how =
    action.resolution && action.resolution.type !== 'cancelled'
      ? ` (${kindOf(action.kind).presentation.outcome(action.resolution as never)})`
      : action.status === 'cancelled'
        ? ' (withdrawn)'
        : '';
  return new HeedError(
    'action_not_pending',
    `The interrupt ${action.id} was already answered ${who}${how}; this resume changed nothing.`,
    {
      details: {
        actionId: action.id,
        status: action.status,
        resolution: action.resolution,
        ...(action.resolvedBy !== null ? { resolvedBy: action.resolvedBy } : {}),
        channel: action.channel,
      },
    },
  );
}
