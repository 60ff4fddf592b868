// The settle verb's running half: reads the store, commits through the runner, starts what comes next.
// What it writes is decided in src/engine/decide/settle.ts (pure).
import { runTurnUnderLease } from './start.js';
import type { TurnResult } from './turn/run-turn.js';
import type { Caller, ChannelWrite } from '../caller.js';
import type { ChannelPlatform } from '../protocol/action-base.js';
import type { Engine } from './engine.js';
import type { ActionRecord, ConversationRecord } from '../types.js';
import { actionView } from '../views.js';
import { transact } from './transact.js';
import { decideSettle, settleParts } from './decide/settle.js';
import { heldBy } from './delegation.js';
import { pauseSpanOf } from './pause-trace.js';
import { currentSpan } from '../telemetry/context.js';
import { HeedError } from '../errors.js';
import { childHolding } from './child-actions.js';
import { extended } from '../objects.js';

export { resolvedEvent } from './decide/settle.js';

export interface SettleOptions {
  /** Who answers; omitted = the library acting as the conversation's owner. */
  caller?: Caller;
  /**
   * An answer given in a chat workspace (docs/channels.md): recorded with this channel, after the adapter's
   * own rule of who may answer (`may`, checked in the 403 place of the order).
   */
  fromChannel?: {
    name: ChannelPlatform;
    may?: (target: { conversation: ConversationRecord; action: ActionRecord }) => boolean | Promise<boolean>;
  };
  /**
   * An answer through a signed answer link: the token already named this action, so the conversation's
   * access rule is not applied (`authorizeResolve` still is, with the recipient as caller); recorded with
   * the recipient as `resolvedBy` and channel `link`.
   */
  link?: { recipient: string | null };
  /** Called once the answer is recorded, before the continuation runs (a stream subscribes here). */
  onRecorded?: (info: { closesPause: boolean; eventSeq: number }) => void;
}

/** While other actions of the pause are still open, the answer's response says what is left. */
export type SettleResult = TurnResult;

/**
 * Settles one action (or records one vote): the settle decider (src/engine/decide/settle.ts) under the
 * runner, which retries an answer that meets another one being recorded for up to `hitl.resolveWaitMs`.
 * The answer that closes the pause claims the continuation in the same write; its turn runs here.
 */
export async function settleAction(
  engine: Engine,
  conversationId: string,
  actionId: string,
  raw: unknown,
  options: SettleOptions & ChannelWrite = {},
): Promise<SettleResult> {
  const tracing = engine.tracing;
  if (!tracing.enabled) return settleUntraced(engine, conversationId, actionId, raw, options, () => undefined);
  // The answer joins the pause's trace: under the caller's own span when it sent one (a `traceparent`),
  // else under the pause's; linked to the pause's span either way.
  const paused = await pauseSpanOf(engine.store, conversationId, actionId);
  const surface = options.link ? 'link' : (options.fromChannel?.name ?? 'api');
  return tracing.span(
    'heed.settle',
    { 'heed.conversation_id': conversationId, 'heed.action_id': actionId, 'heed.surface': surface },
    (span) =>
      settleUntraced(engine, conversationId, actionId, raw, options, (action, decision) =>
        span.set({
          'heed.action.kind': action.kind,
          'heed.decision': decision,
          'heed.wait_ms': engine.clock().getTime() - Date.parse(action.createdAt),
        }),
      ),
    { parent: currentSpan() ?? paused, links: paused ? [paused] : [] },
  );
}

/** What an answer decided, for its span: an approval's `allow`/`deny`, else the answer's type; `vote` for a vote that does not yet decide. */
function decisionOf(action: ActionRecord | undefined, voted: boolean): string {
  if (voted || !action?.resolution) return 'vote';
  const resolution = action.resolution as { type: string; decision?: unknown };
  return typeof resolution.decision === 'string' ? resolution.decision : resolution.type;
}

async function settleUntraced(
  engine: Engine,
  conversationId: string,
  actionId: string,
  raw: unknown,
  options: SettleOptions & ChannelWrite,
  answered: (action: ActionRecord, decision: string) => void,
): Promise<SettleResult> {
  // Whom the caller (or a link's recipient, a user id where mail goes to user ids) answers for as a delegate, now.
  const answerer = options.link ? options.link.recipient : options.fromChannel ? null : options.caller?.userId;
  const standsFor = (await heldBy(engine.store, answerer, engine.now())).map((held) => held.from);
  const record = (id: string) =>
    transact(
      engine,
      id,
      // The messages come with the first read when this answer closes the pause (its turn needs them).
      { messagesWhenClosing: actionId, ...settleParts },
      (read) => decideSettle(engine, actionId, raw, extended(options, { standsFor }), read),
      {
        busy: 'The conversation kept changing while the answer was being recorded; send it again.',
      },
    );
  let done;
  try {
    done = await record(conversationId);
  } catch (thrown) {
    // An action a parent lists from its child (`via`) is answered in the child, under the child's rules.
    const holder =
      HeedError.isInstance(thrown) && thrown.code === 'not_found' && thrown.details?.actionId === actionId
        ? await childHolding(engine, conversationId, actionId)
        : undefined;
    if (!holder) throw thrown;
    conversationId = holder;
    done = await record(conversationId);
  }
  const settled = done.value;
  // Every settle decision writes; the events name the first one's number.
  const eventSeq = done.committed ? done.events[0].seq : 0;
  const agent = done.conversation.agent;
  // The settlement as the store now holds it (seed 000: the response carries it beside the turn); a vote that
  // does not yet decide settles nothing.
  const stored = settled.type === 'voted' ? undefined : settled.action;
  const settlement = stored ? [actionView(engine, stored, agent)] : [];
  if (engine.tracing.enabled) {
    const action = stored ?? (await engine.store.getAction(conversationId, actionId));
    if (action) answered(action, decisionOf(stored, settled.type === 'voted'));
  }
  if (settled.type === 'voted' || !settled.closes) {
    options.onRecorded?.({ closesPause: false, eventSeq });
    const pending = settled.type === 'voted' ? settled.pending : settled.others;
    return {
      // Nothing left open and no turn to run: a request made with POST /api/requests, now settled.
      status: pending.length > 0 ? 'requires_action' : 'completed',
      conversationId,
      messages: [],
      pendingActions: pending.map((entry) => actionView(engine, entry, agent)),
      settled: settlement,
    };
  }
  options.onRecorded?.({ closesPause: true, eventSeq });
  const turn = await runTurnUnderLease(engine, done.conversation, settled.leaseOwner, {
    trigger: 'answer',
    caller: options.caller ?? null,
    interactive: true,
    actions: settled.actions,
    messages: settled.messages,
    remembered: settled.remembered,
  });
  return extended(turn, { settled: settlement });
}
