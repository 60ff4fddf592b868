import {
  chainAfter,
  PRUNE_BATCH,
  withDisplay,
  ZERO_HASH,
  type AuditAnchor,
  type AuditAppend,
  type ChainedEntry,
} from '../audit.js';
import type { AuditPage, DeliveryRecord, Erasure, ErasureCounts } from '../store.js';
import type { ActionRecord, ConversationRecord, EventRecord, MessageRecord, RememberedTool } from '../../types.js';
import { pageSize } from '../values.js';

/*
 * The memory store's audit log, retention and erasure (docs/operating.md), over the maps the store keeps.
 */

interface Entry {
  conversation: ConversationRecord;
  messages: Map<number, MessageRecord>;
  actions: Map<string, ActionRecord>;
  events: EventRecord[];
  remembered: Map<string, RememberedTool>;
}

/** The audit chain in memory: entries in seq order, the pseudonym table, the head and the anchor. */
export function memoryAudit() {
  const log: Array<{ entry: ChainedEntry; hash: string }> = [];
  const people = new Map<string, string>();
  let head: AuditAnchor = { seq: 0, hash: ZERO_HASH };
  let anchor: AuditAnchor = { seq: 0, hash: ZERO_HASH };
  return {
    people,
    append(append: AuditAppend | undefined): void {
      if (!append || append.entries.length === 0) return;
      for (const person of append.people) if (!people.has(person.key)) people.set(person.key, person.userId);
      const chained = chainAfter(head, structuredClone(append.entries));
      log.push(...chained);
      const last = chained[chained.length - 1];
      head = { seq: last.entry.seq, hash: last.hash };
    },
    list(page: AuditPage) {
      const after = page.after ?? 0;
      const since = page.since === undefined ? undefined : Date.parse(page.since);
      return log
        .filter(({ entry }) => entry.seq > after && (since === undefined || Date.parse(entry.at) >= since))
        .slice(0, pageSize(page.limit, 500))
        .map(({ entry, hash }) => withDisplay(structuredClone(entry), hash, (key) => people.get(key)));
    },
    anchor: () => ({ ...anchor }),
    prune(before: string): number {
      let count = 0;
      for (
        let gone = log[0];
        gone && count < PRUNE_BATCH && Date.parse(gone.entry.at) < Date.parse(before);
        gone = log[0]
      ) {
        log.shift();
        anchor = { seq: gone.entry.seq, hash: gone.hash };
        count++;
      }
      return count;
    },
  };
}

/** Whether retention may delete it: idle, nothing queued, nothing pending, last changed before `before`. */
function finished(entry: Entry, before: number): boolean {
  const { conversation } = entry;
  return (
    conversation.status === 'idle' &&
    !conversation.queue?.length &&
    Date.parse(conversation.updatedAt) < before &&
    ![...entry.actions.values()].some((action) => action.status === 'pending')
  );
}

/** The adapter values kept under a conversation's id (checkpoints, run states). */
export function namesConversation(scope: string, conversationId: string): boolean {
  return scope.endsWith(`:${conversationId}`) || scope.includes(`:${conversationId}:`);
}

function dropConversation(
  id: string,
  entries: Map<string, Entry>,
  deliveries: Map<string, DeliveryRecord>,
  values: Map<string, Map<string, string>>,
): void {
  entries.delete(id);
  for (const [deliveryId, delivery] of deliveries) if (delivery.conversationId === id) deliveries.delete(deliveryId);
  for (const scope of [...values.keys()]) if (namesConversation(scope, id)) values.delete(scope);
}

export function deleteFinished(
  state: {
    entries: Map<string, Entry>;
    deliveries: Map<string, DeliveryRecord>;
    values: Map<string, Map<string, string>>;
  },
  before: string,
  limit: number,
): number {
  const cutoff = Date.parse(before);
  const gone = [...state.entries.values()]
    .filter((entry) => finished(entry, cutoff))
    .slice(0, limit)
    .map((entry) => entry.conversation.id);
  for (const id of gone) dropConversation(id, state.entries, state.deliveries, state.values);
  return gone.length;
}

/** Replaces the quoted id in any JSON value; the value and whether it changed. */
function replaced<T>(value: T, quoted: string, pseudonym: string): { value: T; changed: boolean } {
  if (value === undefined) return { value, changed: false };
  const text = JSON.stringify(value);
  if (!text.includes(quoted)) return { value, changed: false };
  return { value: JSON.parse(text.replaceAll(quoted, JSON.stringify(pseudonym))) as T, changed: true };
}

export function erasePerson(
  state: {
    entries: Map<string, Entry>;
    deliveries: Map<string, DeliveryRecord>;
    values: Map<string, Map<string, string>>;
    people: Map<string, string>;
    audit: (append: AuditAppend | undefined) => void;
  },
  erasure: Erasure,
): ErasureCounts {
  const counts: ErasureCounts = { conversations: 0, actions: 0, replaced: 0 };
  const quoted = JSON.stringify(erasure.userId);
  for (const entry of [...state.entries.values()]) {
    if (entry.conversation.ownerId === erasure.userId) {
      counts.conversations++;
      counts.actions += entry.actions.size;
      dropConversation(entry.conversation.id, state.entries, state.deliveries, state.values);
      continue;
    }
    const swap = <T>(value: T, put: (next: T) => void) => {
      const result = replaced(value, quoted, erasure.pseudonym);
      if (result.changed) (put(result.value), counts.replaced++);
    };
    swap(entry.conversation, (next) => (entry.conversation = next));
    for (const [id, action] of entry.actions) swap(action, (next) => entry.actions.set(id, next));
    for (const [position, message] of entry.messages) swap(message, (next) => entry.messages.set(position, next));
    for (const [name, tool] of entry.remembered) swap(tool, (next) => entry.remembered.set(name, next));
    entry.events.forEach((event, index) => swap(event, (next) => (entry.events[index] = next)));
  }
  for (const scope of erasure.valueScopes) state.values.delete(scope);
  for (const [scope, scoped] of state.values) {
    if (!erasure.valuePrefixes.some((prefix) => scope.startsWith(prefix))) continue;
    for (const [key, value] of scoped) if (key === erasure.userId || value.includes(quoted)) scoped.delete(key);
  }
  state.people.delete(erasure.auditKey);
  state.audit(erasure.audit);
  return counts;
}
