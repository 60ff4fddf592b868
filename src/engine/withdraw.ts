import { HeedError } from '../errors.js';
import type { Engine } from './engine.js';
import type { ActionSettlement, NewEvent } from '../store/store.js';
import { describeResolution } from '../kinds/index.js';
import { newEvent } from '../protocol/events.js';
import { actionView } from '../views.js';
import type { ActionRecord, ActionStatus, MessageRecord } from '../types.js';
import { openToolCalls } from './open-calls.js';
import { toolResultWrites } from './tool-result.js';

export interface ClosingWrites {
  settle: ActionSettlement[];
  messages: MessageRecord[];
  events: NewEvent[];
}

/**
 * The writes that close what is open without running anything: each pending action settles as
 * `cancelled` (or `expired` for the ones in `lapsed`), and every tool call of the conversation's last
 * assistant message without a result gets one saying so, so the history stays whole for the model.
 */
export function withdrawalWrites(
  engine: Engine,
  messages: MessageRecord[],
  pending: ActionRecord[],
  options: { resolvedBy: string | null; channel: 'api' | 'system' | 'timeout'; reason: string; lapsed?: Set<string> },
): ClosingWrites {
  const at = engine.now();
  const settle: ActionSettlement[] = [];
  const events: NewEvent[] = [];
  for (const action of pending) {
    const status: Exclude<ActionStatus, 'pending'> = options.lapsed?.has(action.id) ? 'expired' : 'cancelled';
    const settled = {
      id: action.id,
      status,
      resolution: { type: 'cancelled' as const, reason: options.reason },
      resolvedBy: options.resolvedBy,
      channel: options.channel,
      resolvedAt: at,
    };
    settle.push(settled);
    events.push(
      newEvent('action.resolved', at, {
        actionId: action.id,
        kind: action.kind,
        toolCallId: action.toolCallId,
        toolName: action.toolName,
        status,
        resolvedBy: options.resolvedBy,
        channel: options.channel,
        // In words, as every surface says it: a lapse is never told as someone's answer.
        summary: describeResolution(actionView(undefined, { ...action, ...settled })),
        cancelled: true,
        // A lapsed one says so as a lapse under deny does, so one filter on `expired` finds every lapse (seed 002).
        ...(status === 'expired' ? { expired: true as const } : {}),
      }),
    );
  }
  // A call that asked from inside its tool (an MCP server's form, say) had already started: say so.
  const started = new Set(
    pending.filter((action) => action.origin === 'live' || action.origin === 'ctx').map((action) => action.toolCallId),
  );
  const startedText = `${STARTED_REASON[options.reason] ?? STARTED_REASON.new_message} The tool had already started (an MCP tool's server had run up to its request), so it may have done part of its work.`;
  const results = openCallResults(
    messages,
    at,
    'Cancelled: this request was withdrawn before it was answered, and the call did not run.',
    (toolCallId) => (started.has(toolCallId) ? startedText : undefined),
  );
  events.push(...results.map((result) => result.event));
  return { settle, messages: results.map((result) => result.message), events };
}

const STARTED_REASON: Record<string, string> = {
  cancelled: "The call was cancelled while it was waiting for the person's answer.",
  expired: "Nobody answered in time while the call was waiting for the person's answer.",
  new_message: "A new message closed the request while the call was waiting for the person's answer.",
};

/**
 * The writes answering, with `text` as an error, the open calls of the last assistant message
 * (`textFor` may give a call its own text): each a tool message and its `tool.result` event.
 */
export function openCallResults(
  messages: MessageRecord[],
  at: string,
  text: string,
  textFor?: (toolCallId: string) => string | undefined,
): Array<{ message: MessageRecord; event: NewEvent }> {
  const open = openToolCalls(messages);
  if (!open) return [];
  return open.calls.map((call, index) =>
    toolResultWrites({
      conversationId: open.assistant.conversationId,
      position: messages.length + index,
      at,
      call,
      output: { type: 'error-text', value: textFor?.(call.toolCallId) ?? text },
    }),
  );
}

/**
 * After a pause was closed without an answer, a tool still waiting in memory (ctx.askLive) is told so
 * (its request settles as cancelled) and forgotten; whatever it returns later is not used.
 */
export function releaseLiveCalls(engine: Engine, closed: ActionRecord[]): void {
  for (const action of closed) {
    if (action.origin !== 'live') continue;
    const live = engine.liveCalls.get(action.toolCallId);
    if (!live) continue;
    engine.liveCalls.delete(action.toolCallId);
    live.answer({ ...action, status: 'cancelled', resolution: { type: 'cancelled', reason: 'closed' } });
  }
}

/**
 * A new user message (one sent, or a reply made again) while actions wait: refused with `refusal` unless
 * `pendingActionPolicy` is 'cancel', which withdraws the waiting actions (reason `new_message`).
 */
export function withdrawForNewMessage(
  engine: Engine,
  messages: MessageRecord[],
  pending: ActionRecord[],
  refusal: string,
): ClosingWrites {
  if (engine.pendingActionPolicy !== 'cancel') {
    throw new HeedError('action_pending', refusal, {
      details: { pendingActionIds: pending.map((action) => action.id) },
    });
  }
  return withdrawalWrites(engine, messages, pending, { resolvedBy: null, channel: 'system', reason: 'new_message' });
}
