import { HeedError } from '../../errors.js';
import type { TurnResult } from '../../protocol/responses.js';
import type { EventRecord } from '../../types.js';
import { messageViews } from '../../views.js';
import type { Turn } from './turn.js';

/** How long a turn that lost its claim waits for the instance that took it over to end it. */
export const MOVED_WAIT_MS = 10_000;

/** How often it looks for that end meanwhile. */
const POLL_MS = 100;

const ENDS = new Set<EventRecord['type']>(['turn.paused', 'turn.completed', 'turn.failed', 'turn.cancelled']);

/**
 * What a turn answers once it learns it lost its claim. Cancelled (a `turn.cancelled` came first):
 * `cancelled`, as before. Taken over (a `turn.started` came first: its lease lapsed, say while the
 * process was frozen or cut off from the store, and another instance carried the turn on): how the
 * turn ended there, with the messages it wrote and the actions it left open, and a `turn_moved`
 * warning; if it is still running after `MOVED_WAIT_MS`, 409 `conversation_busy` saying from which
 * event to follow it. Never an action of its own: those were not stored.
 */
export async function interruptedResult(turn: Turn): Promise<TurnResult> {
  const engine = turn.engine;
  const conversationId = turn.conversation.id;
  // The last event this turn knows is stored; whatever took its claim wrote after it.
  const after = turn.conversation.lastEventSeq;
  // Read from the store, not followed live: a store shared by processes without notices (one SQLite
  // file) would not wake a follower, and this path is rare.
  let moved = false;
  let end: EventRecord | undefined;
  let cursor = after;
  const deadline = Date.now() + MOVED_WAIT_MS;
  while (!end) {
    const page = await engine.store.listEvents(conversationId, { after: cursor, limit: 500 });
    for (const event of page) {
      cursor = event.seq;
      if (event.type === 'turn.started') moved = true;
      else if (ENDS.has(event.type) && (moved || event.type === 'turn.cancelled')) {
        end = event;
        break;
      }
    }
    if (end || page.length === 500) continue;
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }

  if (!moved) return { status: 'cancelled', conversationId, messages: [] };
  if (!end) {
    throw new HeedError(
      'conversation_busy',
      "This turn was taken over by another server instance (this one lost its claim on the conversation) and is still running there; follow the conversation's events from the number in details.after, or read it again.",
      { details: { conversationId, after } },
    );
  }
  const read = await engine.store.readConversation(conversationId, { messages: true, actions: true });
  const conversation = read?.conversation ?? turn.conversation;
  const actions = read?.actions ?? [];
  // The messages of the turn as it went on elsewhere, up to its end.
  const written = (read?.messages ?? []).filter(
    (message) => message.position >= turn.startPosition && message.createdAt <= end.at,
  );
  const outcome: TurnResult = {
    status:
      end.type === 'turn.paused'
        ? 'requires_action'
        : end.type === 'turn.completed'
          ? 'completed'
          : end.type === 'turn.failed'
            ? 'failed'
            : 'cancelled',
    conversationId,
    messages: messageViews(engine, conversation, written, actions),
  };
  if (end.type === 'turn.paused') {
    const asked = new Set(end.data.actionIds);
    outcome.pendingActions = actions.filter((action) => asked.has(action.id)).map((action) => turn.view(action));
  }
  if (end.type === 'turn.failed') outcome.error = end.data.error;
  outcome.warnings = [
    ...(end.type === 'turn.completed' ? (end.data.warnings ?? []) : []),
    {
      code: 'turn_moved',
      message:
        'This server lost its claim on the turn (it could not renew it in time), and another instance carried the turn on; this is how it ended there.',
    },
  ];
  return outcome;
}
