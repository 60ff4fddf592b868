import type { Write } from './transact.js';
import { callerId, type Caller } from '../caller.js';
import type { Engine } from './engine.js';
import { HeedError } from '../errors.js';
import { newId } from '../ids.js';
import { newEvent, type NewEvent } from '../protocol/events.js';
import type { TurnResult } from '../protocol/responses.js';
import { messagePart } from '../protocol/views.js';
import { z } from 'zod';
import type { UpdateChange } from '../store/store.js';
import type {
  ActionRecord,
  ConversationRecord,
  EventRecord,
  MessagePart,
  MessageRecord,
  QueuedMessage,
} from '../types.js';
import { withdrawalWrites } from './withdraw.js';

const storedParts = z.array(messagePart);

/*
 * Messages sent while a turn runs, under `busyPolicy: 'queue'` (docs/concepts.md). A queued message is a
 * `message.queued` event (its text) and an entry of the conversation's `queue` (its id and event number),
 * written together with compare-and-set. The queue is only ever non-empty while a turn runs: the write
 * that ends a turn (it completes, fails or pauses) also decides for the queue, in the same commit. It
 * starts the first queued message's turn (its user message, `turn.started` with trigger `queue`, a new
 * lease: the turn runs after, and if its process dies the sweep takes it over as any other), or drops
 * the queued messages when a new message would have been refused then. So each queued message runs
 * once, in order, whichever instance ends the turn before it, and survives a restart.
 */

/** A message that will not run, with why: the error a new message would have got then. */
type Refusal = { code: string; message: string };

/**
 * The write that queues a message sent while a turn runs (the send decider's, src/engine/decide/send.ts).
 * Refused (nothing recorded) like a new message would be (the message limit, the token budget), and when
 * the queue is full.
 */
export function queueWrite(
  engine: Engine,
  conversation: ConversationRecord,
  storedMessages: number,
  content: string,
  caller: Caller | undefined,
): { write: Write; entry: QueuedMessage; position: number } {
  const queue = conversation.queue ?? [];
  const max = engine.limits.maxQueuedMessages;
  if (queue.length >= max) {
    throw new HeedError(
      'queue_full',
      `${queue.length} messages already wait for the running turn, the most one conversation may (limits.maxQueuedMessages); send it once one has run.`,
      {
        details: { queued: queue.length, maxQueuedMessages: max },
      },
    );
  }
  const refusal = limitRefusal(engine, conversation, storedMessages + queue.length);
  if (refusal) throw refusal;
  const at = engine.now();
  const entry: QueuedMessage = {
    id: newId('m'),
    seq: conversation.lastEventSeq + 1,
    by: callerId(caller ?? { userId: conversation.ownerId }),
    queuedAt: at,
  };
  const parts: MessagePart[] = [{ type: 'text', text: content }];
  const position = queue.length + 1;
  return {
    write: {
      events: [newEvent('message.queued', at, { messageId: entry.id, parts, by: entry.by, position })],
      set: { queue: [...queue, entry], updatedAt: at },
    },
    entry,
    position,
  };
}

/** What `queueWrite` wrote, as the send's result; the event's number is known before the write because the write is compare-and-set on the version. */
export function queuedResult(
  conversationId: string,
  queued: { entry: QueuedMessage; position: number },
  events: EventRecord[],
): TurnResult {
  if (events[0]?.seq !== queued.entry.seq)
    throw new HeedError('internal_error', 'The queued message was numbered unexpectedly.');
  return {
    status: 'queued',
    conversationId,
    messages: [],
    queued: { messageId: queued.entry.id, position: queued.position },
  };
}

/** What a turn's end started: the next queued message's turn, to run under `leaseOwner`. */
export interface NextTurn {
  leaseOwner: string;
  caller: Caller;
  messages: MessageRecord[];
}

export interface TurnEnd {
  change: UpdateChange;
  next?: NextTurn;
  /** Actions of the pause a queued message closed (pendingActionPolicy 'cancel'). */
  closed: ActionRecord[];
}

/**
 * The change that ends a turn (`status` set to `idle` or `requires_action`), with what the conversation's
 * queue asks for in the same commit: the next queued message's turn starts, or the queued messages are
 * dropped where a new message would be refused (a pause under `pendingActionPolicy: 'reject'`, the
 * message limit, the budget). A pause under 'cancel' is closed by the queued message, as by a new one.
 * `messages` are the conversation's messages, this change's included.
 */
export async function endTurn(
  engine: Engine,
  conversation: ConversationRecord,
  change: UpdateChange,
  context: { messages: MessageRecord[]; actions: () => Promise<ActionRecord[]> },
): Promise<TurnEnd> {
  const queue = conversation.queue ?? [];
  const status = change.set?.status;
  if (queue.length === 0 || (status !== 'idle' && status !== 'requires_action')) return { change, closed: [] };
  const drop = (refusal: Refusal): TurnEnd => ({
    change: {
      ...change,
      events: [...(change.events ?? []), ...droppedEvents(engine, queue, refusal)],
      set: { ...change.set, queue: [] },
    },
    closed: [],
  });
  // Checked in the order a new message is: the message limit, an open pause, the budget (as this change leaves it).
  const after = { ...conversation, ...change.set };
  const full = messageLimitRefusal(engine, context.messages.length);
  if (full) return drop(full);
  const pausing = status === 'requires_action';
  if (pausing && engine.pendingActionPolicy !== 'cancel') {
    return drop({
      code: 'action_pending',
      message:
        'The agent asked for an answer before this message could run; answer or cancel the request, then send the message again.',
    });
  }
  if (!engine.budgetLeft(after)) return drop(engine.budgetError(after));
  const [head, ...rest] = queue;
  const parts = await queuedParts(engine, conversation.id, head);
  if (!parts) return drop({ code: 'internal_error', message: 'The queued message could not be read back.' });

  const at = engine.now();
  const messages = [...context.messages];
  const writes: Required<Pick<UpdateChange, 'events' | 'messages' | 'settle'>> = {
    events: [...(change.events ?? [])],
    messages: [...(change.messages ?? [])],
    settle: [...(change.settle ?? [])],
  };
  let closed: ActionRecord[] = [];
  if (pausing) {
    // The pause this change writes, and anything else still open, is closed as a new message closes it.
    const raised = (change.actions ?? []).filter((action) => action.status === 'pending');
    const older = (await context.actions()).filter(
      (action) => action.status === 'pending' && !raised.some((entry) => entry.id === action.id),
    );
    closed = [...raised, ...older];
    const closing = withdrawalWrites(engine, messages, closed, {
      resolvedBy: null,
      channel: 'system',
      reason: 'new_message',
    });
    writes.settle.push(...closing.settle);
    writes.messages.push(...closing.messages);
    writes.events.push(...closing.events);
    messages.push(...closing.messages);
  }
  const user: MessageRecord = {
    id: head.id,
    conversationId: conversation.id,
    position: messages.length,
    role: 'user',
    parts,
    metadata: null,
    createdAt: at,
  };
  messages.push(user);
  writes.messages.push(user);
  writes.events.push(
    newEvent('message.created', at, {
      messageId: user.id,
      role: 'user',
      parts: user.parts,
      by: head.by,
      queuedAt: head.queuedAt,
    }),
    newEvent('turn.started', at, { trigger: 'queue' }),
  );
  const leaseOwner = newId('lease');
  return {
    change: {
      ...change,
      ...writes,
      set: {
        ...change.set,
        status: 'running',
        leaseOwner,
        leaseExpiresAt: engine.leaseUntil(),
        actionDueAt: null,
        queue: rest,
      },
    },
    next: { leaseOwner, caller: { userId: head.by }, messages },
    closed,
  };
}

/** The events and patch that drop every queued message (a cancel), saying why. */
export function dropQueue(
  engine: Engine,
  conversation: ConversationRecord,
  refusal: Refusal,
): { events: NewEvent[]; set: UpdateChange['set'] } {
  const queue = conversation.queue ?? [];
  if (queue.length === 0) return { events: [], set: {} };
  return { events: droppedEvents(engine, queue, refusal), set: { queue: [] } };
}

function droppedEvents(engine: Engine, queue: QueuedMessage[], refusal: Refusal): NewEvent[] {
  const at = engine.now();
  // A plain object: a HeedError's message is not one of its enumerable fields.
  const error = { code: refusal.code, message: refusal.message };
  return queue.map((entry) => newEvent('message.dropped', at, { messageId: entry.id, error }));
}

/** The refusal a new message would get now from the message limit or the token budget, if any. */
function limitRefusal(engine: Engine, conversation: ConversationRecord, messages: number): HeedError | undefined {
  return (
    messageLimitRefusal(engine, messages) ??
    (engine.budgetLeft(conversation) ? undefined : engine.budgetError(conversation))
  );
}

function messageLimitRefusal(engine: Engine, messages: number): HeedError | undefined {
  const maxMessages = engine.limits.maxMessagesPerConversation;
  if (messages < maxMessages) return undefined;
  return new HeedError(
    'message_limit_reached',
    `This conversation holds ${messages} messages, the most one may (limits.maxMessagesPerConversation); start a new one, or branch this one from an earlier message.`,
    { details: { messages, maxMessages } },
  );
}

/** The parts of a queued message, from its `message.queued` event. */
async function queuedParts(
  engine: Engine,
  conversationId: string,
  entry: QueuedMessage,
): Promise<MessagePart[] | undefined> {
  const [event] = await engine.store.listEvents(conversationId, { after: entry.seq - 1, limit: 1 });
  if (event?.type !== 'message.queued' || event.data.messageId !== entry.id) return undefined;
  // Written by this module as stored parts; read back through their shape, as any stored JSON is.
  return storedParts.parse(event.data.parts);
}

/** The texts of the queued messages, for a conversation's snapshot (each one event read). */
export async function queuedTexts(
  engine: Engine,
  conversation: ConversationRecord,
): Promise<Array<{ id: string; text: string; by: string | null; queuedAt: string }>> {
  const out = [];
  for (const entry of conversation.queue ?? []) {
    const parts = await queuedParts(engine, conversation.id, entry);
    const text = (parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    out.push({ id: entry.id, text, by: entry.by, queuedAt: entry.queuedAt });
  }
  return out;
}
