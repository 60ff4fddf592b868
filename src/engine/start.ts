import { commitWrite } from './transact.js';
import type { Caller } from '../caller.js';
import type { Engine } from './engine.js';
import { newId } from '../ids.js';
import { errorFields } from '../logger.js';
import { newEvent, type EventData } from '../protocol/events.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import type { ActionRecord, ConversationRecord, MessageRecord, RememberedTool } from '../types.js';
import { runTurn, type TurnResult } from './turn/run-turn.js';
import { Turn } from './turn/turn.js';
import { parentOf } from './children.js';

/** What started a turn, as its `turn.started` event names it. */
export type TurnTrigger = EventData<'turn.started'>['trigger'];

/** The first wait before looking whether the store answers again, doubled up to the last. */
const RESUME_FIRST_MS = 250;
const RESUME_LAST_MS = 5000;

/**
 * Runs the turn of a conversation whose claim was just taken (status `running`, lease `leaseOwner`),
 * rebuilding it from the stored messages. Tracked, so `close()` can wait for it. A turn cut off by a
 * store outage rejects with `store_unavailable` and is carried on by this process once the store
 * answers again (`carryOnLater`).
 */
export function runTurnUnderLease(
  engine: Engine,
  conversation: ConversationRecord,
  leaseOwner: string,
  options: {
    /** What started it, as its `turn.started` event says (the `heed.turn` span's trigger). */
    trigger: TurnTrigger;
    caller: Caller | null;
    interactive: boolean;
    askIntake?: boolean;
    messages?: MessageRecord[];
    actions?: ActionRecord[];
    remembered?: RememberedTool[];
  },
): Promise<TurnResult> {
  return engine.track(
    (async () => {
      try {
        const messages = options.messages ?? (await engine.store.listMessages(conversation.id));
        const agent = engine.agents.get(conversation.agent);
        const turn = new Turn(
          engine,
          agent ?? { name: conversation.agent, model: missingModel(conversation.agent) },
          conversation,
          messages,
          options.caller,
          options.interactive,
          leaseOwner,
          options.actions,
          options.remembered,
        );
        const result = await engine.tracing.span(
          'heed.turn',
          {
            'heed.agent': conversation.agent,
            'heed.conversation_id': conversation.id,
            'heed.trigger': options.trigger,
          },
          async (span) => {
            const outcome = await runTurn(turn, { askIntake: options.askIntake ?? false });
            span.set({ 'heed.turn.status': outcome.status });
            return outcome;
          },
        );
        // A parent paused on children that ended while it paused goes on; a child's pause or end is its parent's.
        const afterPause = turn.afterPause;
        if (afterPause)
          void engine
            .track(afterPause())
            .catch((thrown: unknown) => engine.logger.error(errorFields(thrown), 'Heed: a parent could not go on'));
        if (parentOf(turn.conversation))
          await engine.children?.afterChildTurn(turn.conversation, result.status).catch((thrown: unknown) =>
            // The parent's pause brings the sweep back to it: nothing is lost, it goes on later.
            engine.logger.error(errorFields(thrown), 'Heed: a child could not tell its parent'),
          );
        // The message queued behind this turn: its turn was claimed by the write that ended this one.
        const next = turn.next;
        if (next) {
          void runTurnUnderLease(engine, turn.conversation, next.leaseOwner, {
            trigger: 'queue',
            caller: next.caller,
            interactive: true,
            askIntake: true,
            messages: next.messages,
            actions: [],
          }).catch((thrown: unknown) =>
            engine.logger.error(errorFields(thrown), 'Heed: a queued message could not start its turn'),
          );
        }
        return result;
      } catch (thrown) {
        if (isStoreUnavailable(thrown)) {
          // Carried on as it began: a message's turn still asks the intake questions if none were stored.
          carryOnLater(engine, conversation.id, leaseOwner, {
            caller: options.caller,
            interactive: options.interactive,
            askIntake: options.askIntake,
          });
        }
        throw thrown;
      }
    })(),
  );
}

/**
 * Takes over a conversation left `running` (its claim lapsed, or its turn was cut off here): a new
 * lease and a `turn.started` (recovery) in one compare-and-set. Undefined when someone wrote first.
 */
export async function claimRunning(
  engine: Engine,
  conversation: ConversationRecord,
): Promise<{ conversation: ConversationRecord; leaseOwner: string } | undefined> {
  const leaseOwner = newId('lease');
  const at = engine.now();
  const result = await commitWrite(engine, {
    conversationId: conversation.id,
    expectVersion: conversation.version,
    set: { leaseOwner, leaseExpiresAt: engine.leaseUntil(), updatedAt: at },
    events: [newEvent('turn.started', at, { trigger: 'recovery' })],
  });
  return result.ok ? { conversation: result.conversation, leaseOwner } : undefined;
}

/**
 * A turn cut off by a store outage still holds its claim in the store, or its last write went through
 * unseen. Once the store answers again this process carries it on from what is stored, as a takeover
 * after a crash does (a stored tool result is used, a call without one runs again under the same
 * idempotency key), without waiting for the lease to lapse and a sweep. If the conversation paused,
 * ended or moved meanwhile, there is nothing to do.
 */
function carryOnLater(
  engine: Engine,
  conversationId: string,
  leaseOwner: string,
  options: { caller: Caller | null; interactive: boolean; askIntake?: boolean },
): void {
  if (engine.closed || engine.resumes.has(conversationId)) return;
  let wait = RESUME_FIRST_MS;
  const schedule = () => {
    if (engine.closed) return;
    const timer = setTimeout(() => void attempt(), wait);
    timer.unref();
    engine.resumes.set(conversationId, timer);
    wait = Math.min(RESUME_LAST_MS, wait * 2);
  };
  const attempt = async () => {
    engine.resumes.delete(conversationId);
    if (engine.closed) return;
    try {
      const conversation = await engine.store.getConversation(conversationId);
      if (!conversation || conversation.status !== 'running' || conversation.leaseOwner !== leaseOwner) return;
      const claimed = await claimRunning(engine, conversation);
      if (!claimed) return schedule();
      runTurnUnderLease(engine, claimed.conversation, claimed.leaseOwner, { ...options, trigger: 'recovery' }).catch(
        (thrown: unknown) =>
          engine.logger.error(errorFields(thrown), 'Heed: a turn carried on after a store outage failed'),
      );
    } catch (thrown) {
      // Still out: look again later. Anything else is left to the sweep, once the lease lapses.
      if (isStoreUnavailable(thrown)) schedule();
    }
  };
  schedule();
}

/** An agent removed from the config since the pause: its turn fails with a clear error. */
function missingModel(name: string) {
  const fail = () =>
    Promise.reject(new Error(`The agent "${name}" is no longer configured, so the turn cannot go on.`));
  return {
    specificationVersion: 'v3' as const,
    provider: 'heed',
    modelId: 'missing',
    supportedUrls: {},
    doGenerate: fail,
    doStream: fail,
  };
}
