import { HeedError, must } from '../../errors.js';
import { namesApprover } from '../../kinds/approval-policy.js';
import { storedEvent } from '../../protocol/events.js';
import type { ActionRecord, ConversationRecord, EventRecord, MessageRecord, RememberedTool } from '../../types.js';
import { randomBytes } from 'node:crypto';
import type {
  Change,
  CommitResult,
  ConversationRead,
  DecisionTime,
  DeliveryRecord,
  PendingCount,
  Store,
  ValueWrites,
} from '../store.js';
import { iso, ms } from '../times.js';
import { deleteFinished, erasePerson, memoryAudit } from './upkeep.js';
import { byPerson, closesPause, compare, DAY_MS, definedOnly, pageSize } from '../values.js';

interface Entry {
  conversation: ConversationRecord;
  /** By position. */
  messages: Map<number, MessageRecord>;
  actions: Map<string, ActionRecord>;
  /** In order, numbered without gaps. */
  events: EventRecord[];
  remembered: Map<string, RememberedTool>;
}

/**
 * A store in process memory, for tests and throwaway demos: nothing survives a restart. Behaves
 * like the SQLite store, times included (normalized to millisecond ISO strings). Records are
 * copied in and out, so a caller cannot change stored state by mutating them.
 */
export function memoryStore(): Store {
  const entries = new Map<string, Entry>();
  const deliveries = new Map<string, DeliveryRecord>();
  const secrets = new Map<string, string>();
  const values = new Map<string, Map<string, string>>();

  /** Puts and drops values: every value write of the store goes through here. */
  function writeValues(written: ValueWrites): void {
    for (const { scope, key, value } of written.put ?? []) {
      let scoped = values.get(scope);
      if (!scoped) values.set(scope, (scoped = new Map()));
      scoped.set(key, value);
    }
    for (const { scope, keys } of written.drop ?? []) {
      if (keys === undefined) values.delete(scope);
      else for (const key of keys) values.get(scope)?.delete(key);
    }
  }
  const audit = memoryAudit();

  function commit(change: Change): CommitResult {
    const existing = entries.get(change.conversationId);
    const set = definedOnly(clone(change.set ?? {}));
    const events = change.events ?? [];
    let conversation: ConversationRecord;
    if (change.create) {
      if (existing) return { ok: false, reason: 'exists' };
      conversation = { ...clone(change.create), ...set };
    } else {
      if (!existing) return { ok: false, reason: 'not_found' };
      if (existing.conversation.version !== change.expectVersion) return { ok: false, reason: 'version' };
      conversation = {
        ...existing.conversation,
        ...set,
        version: existing.conversation.version + 1,
        updatedAt: set.updatedAt ?? events[events.length - 1]?.at ?? new Date().toISOString(),
      };
    }
    conversation = normalizeConversation({ ...conversation, lastEventSeq: conversation.lastEventSeq + events.length });

    // Check everything before writing anything, so a refusal leaves the entry as it was.
    const entry: Entry = existing ?? {
      conversation,
      messages: new Map(),
      actions: new Map(),
      events: [],
      remembered: new Map(),
    };
    const positions = new Set<number>();
    for (const m of change.messages ?? []) {
      if (entry.messages.has(m.position) || positions.has(m.position))
        throw duplicate(`message position ${m.position}`, change);
      positions.add(m.position);
    }
    const added = new Map<string, ActionRecord>();
    for (const a of change.actions ?? []) {
      if (entry.actions.has(a.id) || added.has(a.id)) throw duplicate(`action ${a.id}`, change);
      added.set(a.id, a);
    }
    const settled = new Set<string>();
    for (const x of change.settle ?? []) {
      const action = added.get(x.id) ?? entry.actions.get(x.id);
      if (!action || action.status !== 'pending' || settled.has(x.id))
        return { ok: false, reason: 'action_not_pending' };
      settled.add(x.id);
    }
    for (const x of change.revise ?? []) {
      const action = entry.actions.get(x.id);
      if (!action || action.status !== 'pending' || settled.has(x.id))
        return { ok: false, reason: 'action_not_pending' };
    }

    // Copy everything first: a value that cannot be copied (or a bad time) then throws before anything is written.
    const messages = (change.messages ?? []).map((m) => ({
      ...clone(m),
      conversationId: change.conversationId,
      createdAt: normalTime(m.createdAt),
    }));
    const actions = (change.actions ?? []).map((a) =>
      normalizeAction({ ...clone(a), conversationId: change.conversationId, kind: a.request.kind }),
    );
    const settlements = (change.settle ?? []).map((x) => ({
      id: x.id,
      fields: {
        status: x.status,
        resolution: clone(x.resolution),
        resolvedBy: x.resolvedBy,
        ...(x.answeredFor !== undefined ? { answeredFor: x.answeredFor } : {}),
        channel: x.channel,
        resolvedAt: normalTime(x.resolvedAt),
        ...(x.defaulted !== undefined ? { defaulted: clone(x.defaulted) } : {}),
      },
    }));
    const revisions = (change.revise ?? []).map((x) => ({
      id: x.id,
      request: clone(x.request),
      ...(x.expiresAt !== undefined ? { expiresAt: normalTimeOrNull(x.expiresAt) } : {}),
      ...(x.remindAt !== undefined ? { remindAt: x.remindAt ? x.remindAt.map(normalTime) : null } : {}),
    }));
    const remembered = (change.remember ?? []).map((r) => ({ ...r, rememberedAt: normalTime(r.rememberedAt) }));
    const newDeliveries = (change.deliveries ?? []).map((d): DeliveryRecord => ({
      ...clone(d),
      conversationId: change.conversationId,
      createdAt: normalTime(d.createdAt),
      status: 'pending',
      attempts: 0,
      dueAt: normalTime(d.createdAt),
      lastError: null,
      finishedAt: null,
      receipt: null,
    }));
    for (const d of newDeliveries) if (deliveries.has(d.id)) throw duplicate(`delivery ${d.id}`, change);
    const firstSeq = conversation.lastEventSeq - events.length + 1;
    const appended = events.map((e, i): EventRecord =>
      storedEvent({
        conversationId: change.conversationId,
        seq: firstSeq + i,
        type: e.type,
        data: clone(e.data),
        at: normalTime(e.at),
      }),
    );
    const returned = { ok: true as const, conversation: clone(conversation), events: clone(appended) };

    entry.conversation = conversation;
    entries.set(change.conversationId, entry);
    for (const m of messages) entry.messages.set(m.position, m);
    for (const a of actions) entry.actions.set(a.id, a);
    for (const x of settlements) {
      // Settled after the inserts above: a change may settle an action it inserts.
      const action = must(entry.actions.get(x.id), `Action ${x.id} was checked to exist before it is settled.`);
      entry.actions.set(x.id, { ...action, ...x.fields });
    }
    for (const x of revisions) {
      const action = must(entry.actions.get(x.id), `Action ${x.id} was checked to exist before it is revised.`);
      const { remindAt, ...revised } = { ...action, ...x };
      // As the other stores keep it: no reminders left is no `remindAt`.
      entry.actions.set(x.id, remindAt && remindAt.length > 0 ? { ...revised, remindAt } : revised);
    }
    for (const r of remembered) entry.remembered.set(r.toolName, r);
    for (const e of appended) entry.events.push(e);
    for (const d of newDeliveries) deliveries.set(d.id, d);
    audit.append(change.audit);
    return returned;
  }

  return {
    async migrate() {},

    async commit(change) {
      return commit(change);
    },

    async getConversation(id) {
      return clone(entries.get(id)?.conversation);
    },

    async readConversation(id, parts) {
      const entry = entries.get(id);
      if (!entry) return undefined;
      const read: ConversationRead = { conversation: clone(entry.conversation) };
      const closing =
        parts.messagesWhenClosing !== undefined && closesPause([...entry.actions.values()], parts.messagesWhenClosing);
      if (parts.messages || closing)
        read.messages = clone([...entry.messages.values()].sort((a, b) => a.position - b.position));
      if (parts.actions) read.actions = clone(oldestFirst([...entry.actions.values()]));
      if (parts.remembered)
        read.remembered = clone([...entry.remembered.values()].sort((a, b) => compare(a.toolName, b.toolName)));
      return read;
    },

    async listConversations(filter) {
      const limit = pageSize(filter.limit, 50);
      const before = filter.before && { at: Date.parse(filter.before.updatedAt), id: filter.before.id };
      const found = [...entries.values()]
        .map((entry) => entry.conversation)
        .filter(
          (c) =>
            (filter.ownerId === undefined || c.ownerId === filter.ownerId) &&
            (filter.status === undefined || c.status === filter.status) &&
            (filter.agent === undefined || c.agent === filter.agent) &&
            (filter.search === undefined || matchesSearch(c, filter.search)) &&
            (!before || compareTimeThenId(c.updatedAt, c.id, before.at, before.id) < 0),
        )
        .sort((a, b) => compareTimeThenId(b.updatedAt, b.id, Date.parse(a.updatedAt), a.id));
      return clone(found.slice(0, limit));
    },

    async listMessages(conversationId, page = {}) {
      let messages = [...(entries.get(conversationId)?.messages.values() ?? [])].sort(
        (a, b) => a.position - b.position,
      );
      if (page.before !== undefined) {
        const end = messages.findIndex((message) => message.id === page.before);
        messages = end < 0 ? [] : messages.slice(0, end);
      }
      if (page.limit !== undefined) messages = messages.slice(Math.max(0, messages.length - page.limit));
      return clone(messages);
    },

    async getAction(conversationId, actionId) {
      return clone(entries.get(conversationId)?.actions.get(actionId));
    },

    async listActions(conversationId) {
      return clone(oldestFirst([...(entries.get(conversationId)?.actions.values() ?? [])]));
    },

    async listPendingActions(filter) {
      const limit = pageSize(filter.limit, 50);
      const after = filter.after && { at: Date.parse(filter.after.createdAt), id: filter.after.id };
      const pending: ActionRecord[] = [];
      for (const entry of entries.values()) {
        const owned = filter.ownerId === undefined || entry.conversation.ownerId === filter.ownerId;
        if (!owned && filter.approver === undefined) continue;
        for (const action of entry.actions.values()) {
          if (action.status !== 'pending') continue;
          const approves =
            filter.approver !== undefined && namesApprover(action, { userId: filter.approver, groups: filter.groups });
          if (!owned && !approves) continue;
          if (after && compareTimeThenId(action.createdAt, action.id, after.at, after.id) <= 0) continue;
          pending.push(action);
        }
      }
      return clone(oldestFirst(pending).slice(0, limit));
    },

    async findAction(actionId) {
      for (const entry of entries.values()) {
        const action = entry.actions.get(actionId);
        if (action) return clone(action);
      }
      return undefined;
    },

    async countPending(now) {
      const at = Date.parse(now);
      const counts = new Map<string, PendingCount>();
      for (const entry of entries.values()) {
        for (const action of entry.actions.values()) {
          if (action.status !== 'pending') continue;
          const key = JSON.stringify([entry.conversation.agent, action.kind]);
          const count = counts.get(key) ?? {
            agent: entry.conversation.agent,
            kind: action.kind,
            count: 0,
            oldestCreatedAt: action.createdAt,
            over1Day: 0,
            over3Days: 0,
            over7Days: 0,
          };
          const waited = at - Date.parse(action.createdAt);
          count.count++;
          if (action.createdAt < count.oldestCreatedAt) count.oldestCreatedAt = action.createdAt;
          if (waited > DAY_MS) count.over1Day++;
          if (waited > 3 * DAY_MS) count.over3Days++;
          if (waited > 7 * DAY_MS) count.over7Days++;
          counts.set(key, count);
        }
      }
      return [...counts.values()].sort((a, b) => compare(a.agent, b.agent) || compare(a.kind, b.kind));
    },

    async listDecisionTimes(since, limit) {
      const from = Date.parse(since);
      const times: DecisionTime[] = [];
      for (const entry of entries.values()) {
        for (const action of entry.actions.values()) {
          if (action.status !== 'resolved' || !action.resolvedAt || !byPerson(action.channel)) continue;
          if (Date.parse(action.resolvedAt) < from) continue;
          const { kind, channel, createdAt, resolvedAt } = action;
          times.push({ agent: entry.conversation.agent, kind, channel, createdAt, resolvedAt });
        }
      }
      return times.sort((a, b) => Date.parse(b.resolvedAt) - Date.parse(a.resolvedAt)).slice(0, limit);
    },

    async listEvents(conversationId, options = {}) {
      const events = entries.get(conversationId)?.events ?? [];
      const skipped = events.length > 0 ? events[0].seq - 1 : 0;
      const start = Math.max(0, (options.after ?? 0) - skipped);
      return clone(events.slice(start, start + pageSize(options.limit, 500)));
    },

    async listRememberedTools(conversationId) {
      const tools = [...(entries.get(conversationId)?.remembered.values() ?? [])];
      return clone(tools.sort((a, b) => compare(a.toolName, b.toolName)));
    },

    async forgetTool(conversationId, toolName) {
      return entries.get(conversationId)?.remembered.delete(toolName) ?? false;
    },

    async listDue(now, limit) {
      const at = Date.parse(now);
      const due: { conversation: ConversationRecord; dueAt: number }[] = [];
      for (const { conversation: c } of entries.values()) {
        const times: number[] = [];
        if (c.actionDueAt !== null && Date.parse(c.actionDueAt) <= at) times.push(Date.parse(c.actionDueAt));
        if (c.status === 'running' && c.leaseExpiresAt !== null && Date.parse(c.leaseExpiresAt) < at) {
          times.push(Date.parse(c.leaseExpiresAt));
        }
        if (times.length > 0) due.push({ conversation: c, dueAt: Math.min(...times) });
      }
      due.sort((a, b) => a.dueAt - b.dueAt || compare(a.conversation.id, b.conversation.id));
      return clone(due.slice(0, pageSize(limit, limit)).map((d) => d.conversation));
    },

    async claimDeliveries(now, until, limit) {
      const at = Date.parse(now);
      const due = [...deliveries.values()]
        .filter((d): d is DeliveryRecord & { dueAt: string } => d.status === 'pending' && d.dueAt !== null)
        .filter((d) => Date.parse(d.dueAt) <= at)
        .sort((a, b) => compareTimeThenId(a.dueAt, a.id, Date.parse(b.dueAt), b.id))
        .slice(0, pageSize(limit, limit));
      for (const d of due) Object.assign(d, { attempts: d.attempts + 1, dueAt: normalTime(until) });
      return clone(due);
    },

    async finishDelivery(id, outcome) {
      const d = deliveries.get(id);
      if (!d) return;
      if (outcome.status === 'pending')
        Object.assign(d, { status: 'pending', dueAt: normalTime(outcome.dueAt), lastError: outcome.error });
      else
        Object.assign(d, {
          status: outcome.status,
          dueAt: null,
          finishedAt: normalTime(outcome.at),
          lastError: outcome.error ?? d.lastError,
          receipt: outcome.receipt ? clone(outcome.receipt) : d.receipt,
        });
    },

    async listDeliveries(filter) {
      const after = filter.after && { at: Date.parse(filter.after.createdAt), id: filter.after.id };
      const found = [...deliveries.values()]
        .filter(
          (d) =>
            (filter.status === undefined || d.status === filter.status) &&
            (filter.actionId === undefined || d.actionId === filter.actionId) &&
            (!after || compareTimeThenId(d.createdAt, d.id, after.at, after.id) > 0),
        )
        .sort((a, b) => compareTimeThenId(a.createdAt, a.id, Date.parse(b.createdAt), b.id));
      return clone(found.slice(0, pageSize(filter.limit, 50)));
    },

    async secret(name) {
      let value = secrets.get(name);
      if (value === undefined) secrets.set(name, (value = randomBytes(32).toString('base64url')));
      return value;
    },

    async listValues(scope) {
      const found = [...(values.get(scope) ?? [])].map(([key, value]) => ({ key, value }));
      return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },

    async putValues(written) {
      writeValues({ put: written });
    },

    async deleteValues(scope, keys) {
      writeValues({ drop: [{ scope, keys }] });
    },

    async swapValue(scope, key, expected, next) {
      const scoped = values.get(scope);
      if ((scoped?.get(key) ?? null) !== expected) return false;
      writeValues(next === null ? { drop: [{ scope, keys: [key] }] } : { put: [{ scope, key, value: next }] });
      return true;
    },

    async appendAudit(append, written) {
      // One synchronous step: nothing runs between the values and the entry.
      if (written) writeValues(written);
      audit.append(append);
    },

    async listAudit(page) {
      return audit.list(page);
    },

    async auditAnchor() {
      return audit.anchor();
    },

    async pruneAudit(before) {
      return audit.prune(before);
    },

    async deleteFinished(before, limit) {
      return deleteFinished({ entries, deliveries, values }, before, limit);
    },

    async erasePerson(erasure) {
      return erasePerson({ entries, deliveries, values, people: audit.people, audit: audit.append }, erasure);
    },

    async close() {},
  };
}

const clone = <T>(value: T): T => structuredClone(value);
/** An ISO 8601 time as the SQL stores give it back (UTC, milliseconds); 500 for one that is not a time. */
const normalTime = (time: string) => iso(ms(time));
const normalTimeOrNull = (time: string | null) => (time === null ? null : normalTime(time));

function compareTimeThenId(time: string, id: string, otherTime: number, otherId: string): number {
  return Date.parse(time) - otherTime || compare(id, otherId);
}

function oldestFirst(actions: ActionRecord[]): ActionRecord[] {
  return actions.sort((a, b) => compareTimeThenId(a.createdAt, a.id, Date.parse(b.createdAt), b.id));
}

function normalizeConversation({ queue, ...c }: ConversationRecord): ConversationRecord {
  return {
    ...c,
    // An empty queue is no queue, as the other stores keep it.
    ...(queue && queue.length > 0 ? { queue } : {}),
    createdAt: normalTime(c.createdAt),
    updatedAt: normalTime(c.updatedAt),
    actionDueAt: normalTimeOrNull(c.actionDueAt),
    leaseExpiresAt: normalTimeOrNull(c.leaseExpiresAt),
  };
}

function normalizeAction({ remindAt, ...a }: ActionRecord): ActionRecord {
  return {
    ...a,
    createdAt: normalTime(a.createdAt),
    expiresAt: normalTimeOrNull(a.expiresAt),
    resolvedAt: normalTimeOrNull(a.resolvedAt),
    ...(remindAt && remindAt.length > 0 ? { remindAt: remindAt.map(normalTime) } : {}),
  };
}

function duplicate(what: string, change: Change): HeedError {
  return new HeedError('internal_error', `Conversation ${change.conversationId} already has ${what}.`);
}

/** The stores' `search`: the agent name or a string `metadata.title` contains the text, ignoring case. */
function matchesSearch(conversation: ConversationRecord, search: string): boolean {
  const text = search.toLowerCase();
  const title = conversation.metadata?.title;
  return (
    conversation.agent.toLowerCase().includes(text) || (typeof title === 'string' && title.toLowerCase().includes(text))
  );
}
