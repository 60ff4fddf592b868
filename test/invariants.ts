/**
 * What must hold for every stored conversation, whatever happened to it (crashes, races, hostile
 * input). Read through the `Store` interface only, so the crash, interleaving and soak tests share it
 * for any store. Each check returns sentences naming what is wrong; an empty list means it holds.
 */
import type { Store } from '../src/store/store.js';
import type { ActionRecord, ConversationRecord, EventRecord, MessageRecord } from '../src/types.js';

export interface StoredConversation {
  conversation: ConversationRecord;
  messages: MessageRecord[];
  actions: ActionRecord[];
  events: EventRecord[];
}

/** Everything stored for one conversation (every page of its event log). */
export async function readConversation(store: Store, id: string): Promise<StoredConversation | undefined> {
  const conversation = await store.getConversation(id);
  if (!conversation) return undefined;
  const [messages, actions] = await Promise.all([store.listMessages(id), store.listActions(id)]);
  const events: EventRecord[] = [];
  for (;;) {
    const page = await store.listEvents(id, { after: events.at(-1)?.seq ?? 0, limit: 500 });
    events.push(...page);
    if (page.length < 500) break;
  }
  return { conversation, messages, actions, events };
}

/** The checks below, on what is stored now. */
export async function conversationProblems(store: Store, id: string): Promise<string[]> {
  const stored = await readConversation(store, id);
  return stored ? storedProblems(stored) : [`${id}: not stored`];
}

export function storedProblems(stored: StoredConversation): string[] {
  const problems: string[] = [];
  const say = (problem: string) => problems.push(`${stored.conversation.id}: ${problem}`);
  checkEventNumbers(stored, say);
  checkMessages(stored, say);
  checkActions(stored, say);
  checkTurns(stored, say);
  return problems;
}

/** Events are numbered 1, 2, 3… without a gap, up to the conversation's `lastEventSeq`. */
function checkEventNumbers({ conversation, events }: StoredConversation, say: (problem: string) => void): void {
  events.forEach((event, index) => {
    if (event.seq !== index + 1) say(`event #${index + 1} is numbered ${event.seq}`);
  });
  if (events.length !== conversation.lastEventSeq)
    say(`lastEventSeq is ${conversation.lastEventSeq} but ${events.length} events are stored`);
}

/**
 * Messages are whole: dense positions, every tool result answers one earlier call exactly once, and
 * each message written by a turn has its event (and each such event its message).
 */
function checkMessages({ conversation, messages, events }: StoredConversation, say: (problem: string) => void): void {
  messages.forEach((message, index) => {
    if (message.position !== index) say(`message ${message.id} is at position ${message.position}, expected ${index}`);
    if (!Array.isArray(message.parts)) say(`message ${message.id} has no parts`);
  });
  const calls = new Map<string, number>();
  const results = new Map<string, number>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        if (message.role !== 'assistant') say(`a tool call in a ${message.role} message`);
        if (calls.has(part.toolCallId)) say(`tool call ${part.toolCallId} appears twice`);
        calls.set(part.toolCallId, message.position);
      } else if (part.type === 'tool-result') {
        if (message.role !== 'tool') say(`a tool result in a ${message.role} message`);
        const called = calls.get(part.toolCallId);
        if (called === undefined || called > message.position)
          say(`tool result ${part.toolCallId} answers no earlier call`);
        results.set(part.toolCallId, (results.get(part.toolCallId) ?? 0) + 1);
      }
    }
  }
  for (const [toolCallId, count] of results) if (count > 1) say(`tool call ${toolCallId} has ${count} stored results`);

  // A branch copies messages without their events; its own later writes are checked from its first event on.
  if (conversation.metadata && 'branchedFrom' in conversation.metadata) return;
  const created = countBy(
    events.filter((event) => event.type === 'message.created'),
    (event) => String(event.data.messageId),
  );
  const ids = new Set(messages.map((message) => message.id));
  for (const message of messages) {
    if (message.role === 'tool') continue;
    const count = created.get(message.id) ?? 0;
    if (count !== 1) say(`${message.role} message ${message.id} has ${count} message.created events`);
  }
  for (const messageId of created.keys())
    if (!ids.has(messageId)) say(`message.created for ${messageId}, which is not stored`);
  const resultEvents = countBy(
    events.filter((event) => event.type === 'tool.result'),
    (event) => String(event.data.toolCallId),
  );
  for (const [toolCallId, count] of results) {
    if ((resultEvents.get(toolCallId) ?? 0) !== count)
      say(
        `tool result ${toolCallId} is stored ${count}× but has ${resultEvents.get(toolCallId) ?? 0} tool.result events`,
      );
  }
  for (const toolCallId of resultEvents.keys())
    if (!results.has(toolCallId)) say(`tool.result event for ${toolCallId}, whose result is not stored`);

  // What a live follower read as text deltas is the stored text. Deltas of a reply that was never
  // stored (its turn was cancelled, failed, or its process died) must be followed by that ending.
  const deltas = new Map<string, { text: string; lastSeq: number }>();
  for (const event of events) {
    if (event.type !== 'text.delta') continue;
    const entry = deltas.get(String(event.data.messageId)) ?? { text: '', lastSeq: 0 };
    deltas.set(String(event.data.messageId), { text: entry.text + String(event.data.delta), lastSeq: event.seq });
  }
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    const streamed = deltas.get(message.id)?.text ?? '';
    if (streamed !== text)
      say(`message ${message.id} holds ${JSON.stringify(text)} but its deltas say ${JSON.stringify(streamed)}`);
  }
  for (const [messageId, { lastSeq }] of deltas) {
    if (ids.has(messageId)) continue;
    const ended = events.some(
      (event) =>
        event.seq > lastSeq &&
        (event.type === 'turn.cancelled' ||
          event.type === 'turn.failed' ||
          (event.type === 'turn.started' && event.data.trigger === 'recovery')),
    );
    if (!ended)
      say(`text deltas of ${messageId}, a reply that is not stored and whose turn did not end or get taken over`);
  }
}

const settledStatuses: Record<ActionRecord['status'], string[]> = {
  pending: [],
  resolved: ['approved', 'rejected', 'answered', 'skipped', 'dismissed', 'failed'],
  cancelled: ['cancelled'],
  expired: ['expired', 'rejected', 'skipped', 'failed'],
};

/** Each action was asked once, settled at most once, and its record says what its events say. */
function checkActions(
  { conversation, messages, actions, events }: StoredConversation,
  say: (problem: string) => void,
): void {
  const branched = Boolean(conversation.metadata && 'branchedFrom' in conversation.metadata);
  const required = countBy(
    events.filter((event) => event.type === 'action.required'),
    (event) => String(event.data.actionId),
  );
  const resolved = new Map<string, EventRecord[]>();
  for (const event of events) {
    if (event.type !== 'action.resolved' || event.data.actionId === undefined) continue;
    const list = resolved.get(String(event.data.actionId)) ?? [];
    list.push(event);
    resolved.set(String(event.data.actionId), list);
  }
  const byId = new Map(actions.map((action) => [action.id, action]));
  for (const action of actions) {
    const asker = messages.find((message) => message.id === action.messageId);
    if (!asker?.parts.some((part) => part.type === 'tool-call' && part.toolCallId === action.toolCallId)) {
      say(`action ${action.id} refers to a call ${action.toolCallId} its message does not hold`);
    }
    if (branched) continue;
    if ((required.get(action.id) ?? 0) !== 1)
      say(`action ${action.id} has ${required.get(action.id) ?? 0} action.required events`);
    const settled = resolved.get(action.id) ?? [];
    if (action.status === 'pending') {
      if (settled.length > 0) say(`action ${action.id} is pending but has an action.resolved event`);
      if (action.resolution !== null) say(`action ${action.id} is pending but holds a resolution`);
    } else {
      if (settled.length !== 1)
        say(`action ${action.id} (${action.status}) has ${settled.length} action.resolved events`);
      // resolvedBy is null for an anonymous caller and the system, `system:timeout` for a lapse; channel always says how.
      if (action.resolution === null || action.channel === null || action.resolvedAt === null)
        say(`action ${action.id} is ${action.status} without how, when and what`);
      if (
        settled[0] &&
        (settled[0].data.channel !== action.channel || (settled[0].data.resolvedBy ?? null) !== action.resolvedBy)
      ) {
        say(
          `action ${action.id} records ${action.resolvedBy}/${action.channel} but its event says ${settled[0].data.resolvedBy}/${settled[0].data.channel}`,
        );
      }
      const status = String(settled[0]?.data.status);
      if (settled[0] && !settledStatuses[action.status].includes(status))
        say(`action ${action.id} is ${action.status} but its event says ${status}`);
    }
  }
  // An approval decided by votes keeps every vote its `action.voted` events announce, in order: none lost.
  for (const action of actions) {
    if (branched || action.request.kind !== 'approval' || action.request.required === undefined) continue;
    const announced = events
      .filter((event) => event.type === 'action.voted' && event.data.actionId === action.id)
      .map((event) => String(event.data.by));
    const kept =
      (action.resolution?.type === 'approval' ? action.resolution.votes : undefined) ?? action.request.votes ?? [];
    if (announced.join(',') !== kept.map((vote) => vote.by).join(','))
      say(`action ${action.id} keeps votes ${kept.map((vote) => vote.by)} but its events say ${announced}`);
  }
  for (const actionId of [...required.keys(), ...resolved.keys()]) {
    if (!byId.has(actionId)) say(`events refer to action ${actionId}, which is not stored`);
  }

  const pending = actions.filter((action) => action.status === 'pending');
  if (conversation.status === 'requires_action' && pending.length === 0) say('requires_action with nothing pending');
  if (conversation.status !== 'requires_action' && pending.length > 0)
    say(`${conversation.status} with ${pending.length} pending actions`);
  if (conversation.status === 'running' && (!conversation.leaseOwner || !conversation.leaseExpiresAt))
    say('running without a lease');
  if (conversation.status !== 'running' && conversation.leaseOwner !== null)
    say(`${conversation.status} but still leased`);
}

type TurnState = 'idle' | 'running' | 'paused';

/**
 * Replays the log as a state machine: a turn starts only from idle (a message) or from a pause whose
 * actions are all settled (an answer or a lapse) — so one pause gets one continuation — or takes over
 * a running one (recovery); it ends exactly once. The state it ends in is the conversation's status.
 */
function checkTurns({ conversation, events }: StoredConversation, say: (problem: string) => void): void {
  let state: TurnState = 'idle';
  const open = new Set<string>();
  const wrong = (event: EventRecord) =>
    say(
      `event ${event.seq} ${event.type}${event.data.trigger ? ` (${String(event.data.trigger)})` : ''} while ${state}`,
    );
  for (const event of events) {
    switch (event.type) {
      case 'turn.started': {
        const trigger = event.data.trigger;
        if (trigger === 'message') {
          if (state === 'running') wrong(event);
          if (state === 'paused' && open.size > 0)
            say(`event ${event.seq}: a message turn started with ${open.size} actions open`);
        } else if (trigger === 'answer' || trigger === 'timeout') {
          if (state !== 'paused') wrong(event);
          if (open.size > 0) say(`event ${event.seq}: a continuation started with ${open.size} actions still open`);
        } else if (trigger === 'recovery') {
          if (state !== 'running') wrong(event);
        } else {
          say(`event ${event.seq}: turn.started with trigger ${String(trigger)}`);
        }
        state = 'running';
        break;
      }
      case 'turn.paused':
        if (state !== 'running') wrong(event);
        state = 'paused';
        break;
      case 'turn.completed':
      case 'turn.failed':
        if (state !== 'running') wrong(event);
        state = 'idle';
        break;
      case 'turn.cancelled':
        if (state === 'idle') wrong(event);
        if (open.size > 0) say(`event ${event.seq}: turn.cancelled left ${open.size} actions open`);
        state = 'idle';
        break;
      case 'action.required':
        if (state !== 'running') wrong(event);
        open.add(String(event.data.actionId));
        break;
      case 'action.resolved':
        if (event.data.actionId === undefined) {
          if (state !== 'running') wrong(event); // a remembered approval passing silently
        } else if (!open.delete(String(event.data.actionId))) {
          say(`event ${event.seq}: action ${String(event.data.actionId)} settled while not open`);
        }
        break;
      case 'message.created':
        if (event.data.role === 'user' ? state === 'running' : state !== 'running') wrong(event);
        break;
      case 'text.delta':
      case 'tool.called':
        if (state !== 'running') wrong(event);
        break;
      case 'tool.result':
        if (state === 'idle') wrong(event);
        break;
    }
  }
  const expected: Record<ConversationRecord['status'], TurnState> = {
    idle: 'idle',
    running: 'running',
    requires_action: 'paused',
  };
  if (expected[conversation.status] !== state) say(`status is ${conversation.status} but the log ends ${state}`);
}

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
