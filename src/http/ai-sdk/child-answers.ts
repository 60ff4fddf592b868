import type { Caller } from '../../caller.js';
import { childPendingRecords } from '../../engine/child-actions.js';
import type { TurnResult } from '../../engine/turn/run-turn.js';
import type { Heed } from '../../heed.js';
import type { HeedHooks } from '../../hooks.js';
import type { EventRecord } from '../../types.js';
import { actionView, type ActionView } from '../../views.js';

/*
 * A child agent's request on a lead's AI SDK chat (docs/concepts.md, Agents that call agents): the client sees
 * it on the lead's own `agent_<name>` part (ui-stream.ts), so its answer names that part's call. Answered, the
 * child's turn runs on and the lead's continuation is started by whoever ends the child, so the chat streams
 * the lead's log until its turn pauses or ends.
 */

/** The pending requests of the lead's children, each as the lead's client sees it: on the lead's call that waits on it. */
export async function childActionsOnLeadCalls(hooks: HeedHooks, conversationId: string): Promise<ActionView[]> {
  const conversation = await hooks.store.getConversation(conversationId);
  if (!conversation) return [];
  return (await childPendingRecords(hooks, conversation)).map(({ action, agent, via, callId }) => ({
    ...actionView(hooks, action, agent),
    via,
    toolCallId: callId,
  }));
}

const TURN_ENDS: Record<string, TurnResult['status'] | undefined> = {
  'turn.paused': 'requires_action',
  'turn.completed': 'completed',
  'turn.cancelled': 'cancelled',
  'turn.failed': 'failed',
};

/**
 * Answers a child's request through the lead: `recorded` is told the lead's first event to stream from once the
 * answer closed the child's pause; resolves with the lead's outcome once its turn paused or ended (the
 * child's, when the answer closed nothing).
 */
export async function answerChildThroughLead(
  hooks: HeedHooks,
  heed: Heed,
  conversationId: string,
  answer: { action: ActionView; resolution: Record<string, unknown> },
  caller: Caller,
  recorded: (eventSeq: number) => void,
  signal: AbortSignal,
): Promise<{ result: TurnResult; closed: boolean }> {
  const lead = heed.conversation(conversationId);
  const from = (await hooks.store.getConversation(conversationId))?.lastEventSeq ?? 0;
  let closed = false;
  const child = await lead.resolve(answer.action.id, answer.resolution, {
    caller,
    onRecorded: (info) => {
      if (!info.closesPause) return;
      closed = true;
      recorded(from + 1);
    },
  });
  if (!closed) return { result: child, closed };
  // A child that asked again keeps the lead paused (its log gets `child.paused`); one that ended continues it.
  const status =
    child.status === 'requires_action' ? 'requires_action' : await leadTurnEnd(hooks, conversationId, from, signal);
  const snapshot = await lead.get({ caller });
  const result: TurnResult = {
    status,
    conversationId,
    messages: [],
    ...(snapshot.pendingActions?.length ? { pendingActions: snapshot.pendingActions } : {}),
  };
  return { result, closed };
}

/** How the lead's turn after `from` ended (paused, completed, …), once it has; `cancelled` when the client left first. */
function leadTurnEnd(
  hooks: HeedHooks,
  conversationId: string,
  from: number,
  signal: AbortSignal,
): Promise<TurnResult['status']> {
  return new Promise<TurnResult['status']>((resolve) => {
    let ended = false;
    // Filled in once `follow` returns: a backlog may end the turn before it does.
    const held: { follow?: { close(): void } } = {};
    const done = (value: TurnResult['status']) => {
      if (ended) return;
      ended = true;
      held.follow?.close();
      signal.removeEventListener('abort', stop);
      resolve(value);
    };
    const stop = () => done('cancelled');
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    held.follow = hooks.follow(
      conversationId,
      from,
      (event: EventRecord) => {
        const ends = TURN_ENDS[event.type];
        if (ends) done(ends);
      },
      {},
    );
    if (ended) held.follow.close();
  });
}
