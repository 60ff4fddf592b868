import { conversationNotFound, defaults, type Engine } from './engine.js';
import { HeedError } from '../errors.js';
import { hydrateEvents } from './hydrate.js';
import { auditAppend, decisionsOf, pseudonymKey } from './audit.js';
import type {
  Change,
  CommitResult,
  ConversationParts,
  ConversationRead,
  CreateChange,
  UpdateChange,
} from '../store/store.js';
import type { ActionRecord, ConversationRecord, EventRecord, MessageRecord, RememberedTool } from '../types.js';
import { extended } from '../objects.js';

/*
 * The one write path (docs/architecture.md): read one snapshot, ask a decider what to write, plan the
 * notifications from that same snapshot, commit with compare-and-set, and on a lost race read again and
 * decide again, under one retry policy. Only this module calls the store's `commit`.
 */

/** A conversation read in one statement, with exactly the parts the decider asked for (no optional parts to `!`). */
export type Snapshot<P extends ConversationParts> = { conversation: ConversationRecord } & (P['messages'] extends true
  ? { messages: MessageRecord[] }
  : unknown) &
  (P['actions'] extends true ? { actions: ActionRecord[] } : unknown) &
  (P['remembered'] extends true ? { remembered: RememberedTool[] } : unknown);

/** What a write to an existing conversation carries; the runner adds the conversation's id and the expected version. */
export type Write = Omit<UpdateChange, 'conversationId' | 'expectVersion' | 'create'>;

/**
 * What a decider answers: write this (compare-and-set on the snapshot's version), create a new conversation,
 * write nothing, or read a fuller snapshot first (`read`: more parts, then it is asked again). A refusal is
 * thrown (a `HeedError`) and ends the transaction. `value` is what the caller gets back.
 */
export type Decision<T> =
  | { type: 'read'; parts: ConversationParts }
  | { type: 'write'; write: Write; value: T }
  | { type: 'create'; create: CreateChange; value: T }
  | { type: 'none'; value: T };

/** A decider: from one snapshot to one decision. It writes nothing itself; it may ask the config's hooks. */
export type Decider<P extends ConversationParts, T> = (snapshot: Snapshot<P>) => Decision<T> | Promise<Decision<T>>;

export type Transacted<T> =
  | { committed: true; value: T; conversation: ConversationRecord; events: EventRecord[] }
  | { committed: false; value: T; conversation: ConversationRecord }
  | { committed: false; lost: true };

/**
 * Reads `conversationId` (throwing the 404 of a missing conversation), decides, commits. With `busy`, a
 * compare-and-set lost to another write is read and decided again until `hitl.resolveWaitMs` (default 3 s),
 * with a short growing pause between attempts; without it, the first lost race returns `{ lost: true }`.
 */
export async function transact<const P extends ConversationParts, T>(
  engine: Engine,
  conversationId: string,
  parts: P,
  decide: Decider<P, T>,
  options: { busy: string },
): Promise<Exclude<Transacted<T>, { lost: true }>>;
export async function transact<const P extends ConversationParts, T>(
  engine: Engine,
  conversationId: string,
  parts: P,
  decide: Decider<P, T>,
  options?: { busy?: undefined },
): Promise<Transacted<T>>;
export async function transact<const P extends ConversationParts, T>(
  engine: Engine,
  conversationId: string,
  parts: P,
  decide: Decider<P, T>,
  options: { busy?: string } = {},
): Promise<Transacted<T>> {
  const waitUntil = Date.now() + (engine.hitl.resolveWaitMs ?? defaults.resolveWaitMs);
  let reading: ConversationParts = parts;
  // A conversation this process just created empty is known without reading it. Only a write is taken from
  // that snapshot, and its compare-and-set proves it current (nothing else changes an empty conversation
  // without a new version); anything else, a refusal included, is decided again from a read.
  let created = takeCreated(engine, conversationId);
  for (let attempt = 0; ; attempt++) {
    const fromMemory = created !== undefined;
    const read = created
      ? createdSnapshot(created, reading)
      : await engine.store.readConversation(conversationId, reading);
    created = undefined;
    if (!read) throw conversationNotFound(conversationId);
    const snapshot = read as Snapshot<P>;
    let decision: Decision<T>;
    try {
      decision = await decide(snapshot);
    } catch (error) {
      if (!fromMemory) throw error;
      attempt--;
      continue;
    }
    if (fromMemory && decision.type !== 'write') {
      attempt--;
      continue;
    }
    if (decision.type === 'read') {
      // The decider needs more than it asked for first (an answer that closes a pause reads the messages):
      // read one fuller snapshot and decide again from it.
      if (
        Object.entries(decision.parts).every(([part, wanted]) => !wanted || reading[part as keyof ConversationParts])
      ) {
        throw new HeedError('internal_error', 'A decider asked again for parts it was given.');
      }
      reading = { ...reading, ...decision.parts };
      attempt--;
      continue;
    }
    if (decision.type === 'none') return { committed: false, value: decision.value, conversation: read.conversation };
    if (decision.type === 'create') {
      const created = await commitWrite(engine, decision.create);
      if (!created.ok) throw new HeedError('internal_error', 'The new conversation could not be written.');
      return { committed: true, value: decision.value, conversation: created.conversation, events: created.events };
    }
    // The ids first (src/objects.ts says why); a Write holds neither.
    const change: UpdateChange = { conversationId, expectVersion: read.conversation.version, ...decision.write };
    const result = await commitWrite(engine, change, { conversation: read.conversation, actions: read.actions });
    if (result.ok)
      return { committed: true, value: decision.value, conversation: result.conversation, events: result.events };
    // The conversation changed since it was created: not a lost race, the first read of this transaction.
    if (fromMemory) {
      attempt--;
      continue;
    }
    if (options.busy === undefined) return { committed: false, lost: true };
    if (Date.now() >= waitUntil) throw new HeedError('conversation_busy', options.busy);
    // Another write won the race; look again (it may have settled the very action this one wanted).
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt * 3 + Math.random() * 5)));
  }
}

/**
 * Writes a conversation that does not exist yet, with what it starts with (a request made with
 * `POST /api/requests`): no snapshot to decide from and no version to compare, the id being new; the
 * store refuses a taken id with `exists`. Its notifications join it as any change's do.
 */
export async function createConversation(engine: Engine, create: CreateChange): Promise<CommitResult> {
  return commitWrite(engine, create);
}

/**
 * The commit under the runner: the notifications the change causes join it (the outbox, planned from the
 * snapshot already read when there is one), and once applied its events reach live followers. Exported for
 * the writers not yet moved onto `transact` (the list in src/architecture.test.ts only shrinks).
 */
export async function commitWrite(
  engine: Engine,
  change: Change,
  known: { conversation?: ConversationRecord; actions?: ActionRecord[] } = {},
): Promise<CommitResult> {
  // The one shape the types cannot hold: a new conversation's record carries the change's id.
  if (change.create && change.create.id !== change.conversationId) {
    throw new HeedError('internal_error', `A change to conversation ${change.conversationId} creates another id.`);
  }
  const deliveries = engine.outbox?.active ? await engine.outbox.deliveriesFor(change, known) : [];
  // A notification is sent as soon as its commit returns, so a change that carries one waits for its flush.
  let written: Change =
    deliveries.length > 0
      ? extended(change, { deliveries: [...(change.deliveries ?? []), ...deliveries], waitForFlush: undefined })
      : change;
  // The decisions it makes go to the audit log in the same transaction (docs/operating.md, The audit log).
  const decisions = decisionsOf(change, known.actions);
  if (decisions.length > 0)
    written = extended(written, { audit: auditAppend(await pseudonymKey(engine.store), decisions) });
  engine.created.delete(change.conversationId);
  const result = await engine.store.commit(written);
  if (result.ok && change.create && isEmptyCreate(change)) rememberCreated(engine, result.conversation);
  if (result.ok && result.events.length > 0) engine.bus.publish(hydrateEvents(result.events, change.actions ?? []));
  if (result.ok && deliveries.length > 0) engine.outbox?.wake();
  return result;
}

/** At most this many just-created conversations are kept (a conversation nobody writes to again costs a slot). */
const CREATED_KEPT = 256;

function isEmptyCreate(change: CreateChange): boolean {
  return !change.messages?.length && !change.actions?.length && !change.remember?.length && !change.events?.length;
}

function rememberCreated(engine: Engine, conversation: ConversationRecord): void {
  if (engine.created.size >= CREATED_KEPT) engine.created.delete(engine.created.keys().next().value!);
  engine.created.set(conversation.id, conversation);
}

function takeCreated(engine: Engine, conversationId: string): ConversationRecord | undefined {
  const conversation = engine.created.get(conversationId);
  if (conversation) engine.created.delete(conversationId);
  // A copy, so the record the creator was handed and the snapshot a decider reads are not one object. Only
  // metadata nests (an empty conversation has no queue); a whole structuredClone was a visible share of a send.
  return conversation && { ...conversation, metadata: conversation.metadata && structuredClone(conversation.metadata) };
}

/** An empty conversation's snapshot with exactly the parts asked for (no action is pending, so no messages for `messagesWhenClosing`). */
function createdSnapshot(conversation: ConversationRecord, parts: ConversationParts): ConversationRead {
  return {
    conversation,
    ...(parts.messages ? { messages: [] } : {}),
    ...(parts.actions ? { actions: [] } : {}),
    ...(parts.remembered ? { remembered: [] } : {}),
  };
}
