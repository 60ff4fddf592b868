import { storedEvent } from '../../protocol/events.js';
import type { ActionRecord, EventRecord } from '../../types.js';
import type { ActionSettlement, Change, CommitResult, ConversationPatch } from '../store.js';
import { listenerLock } from './listen.js';
import type { QueryConfig } from './pool.js';
import { type ConversationRow, conversationColumns, toConversation } from './rows.js';
import { iso, ms, msOrNull } from '../times.js';
import { definedOnly, json } from '../values.js';

/** What the commit statement returns: one row. */
export interface CommitRow {
  /** The conversation as written; null when the change was refused (version, not found, exists). */
  conversation: ConversationRow | null;
  /** For a change to an existing conversation: whether the id exists (tells `version` from `not_found`). */
  present?: boolean;
}

/**
 * A change as ONE statement (one round trip, atomic on its own): a data-modifying CTE that
 * compare-and-sets (or inserts) the conversation row, and only through it (`FROM c`) inserts the
 * messages, actions, events and remembered tools, settles actions that are still `pending`, and
 * queues a NOTIFY (delivered on commit). When the conversation row is not written nothing else is;
 * when a settlement finds its action no longer pending, `heed_refuse` raises and the whole statement
 * rolls back. Values travel as JSON arrays read with json_to_recordset, so the SQL text depends only
 * on the change's shape and is prepared once per connection.
 */
export function commitStatement(
  schema: string,
  channel: string,
  change: Change,
): { query: QueryConfig; refuseLocally: boolean } {
  const t = (table: string) => `${schema}.${table}`;
  const values: unknown[] = [];
  const param = (value: unknown, type: string) => {
    values.push(value);
    return `$${values.length}::${type}`;
  };
  const events = change.events ?? [];
  const parts: string[] = [];

  const { actions, dbSettles, refuseLocally } = splitSettlements(change.actions ?? [], change.settle ?? []);
  const id = param(change.conversationId, 'text');

  if (change.create) {
    const created = { ...change.create, ...definedOnly(change.set ?? {}) };
    const row = [
      id,
      param(created.agent, 'text'),
      param(created.ownerId, 'text'),
      param(created.channel, 'text'),
      param(created.status, 'text'),
      param(created.version, 'int'),
      param(json(created.metadata), 'json'),
      param(ms(created.createdAt), 'bigint'),
      param(ms(created.updatedAt), 'bigint'),
      param(msOrNull(created.actionDueAt), 'bigint'),
      param(created.leaseOwner, 'text'),
      param(msOrNull(created.leaseExpiresAt), 'bigint'),
      param(created.tokensUsed, 'bigint'),
      param(created.lastEventSeq + events.length, 'bigint'),
      param(created.intakeDone, 'boolean'),
      param(queueJson(created.queue), 'json'),
    ];
    parts.push(
      `c AS (INSERT INTO ${t('conversations')} (id, agent, owner_id, channel, status, version, metadata, created_at, updated_at,
         action_due_at, lease_owner, lease_expires_at, tokens_used, last_event_seq, intake_done, queue)
       VALUES (${row.join(', ')}) ON CONFLICT (id) DO NOTHING RETURNING ${conversationColumns})`,
    );
  } else {
    const set = change.set ?? {};
    const updatedAt = set.updatedAt ?? events[events.length - 1]?.at;
    const assignments = [
      'version = version + 1',
      `last_event_seq = last_event_seq + ${param(events.length, 'bigint')}`,
      `updated_at = ${param(updatedAt === undefined ? Date.now() : ms(updatedAt), 'bigint')}`,
      ...patchAssignments(set, param),
    ];
    parts.push(
      `c AS (UPDATE ${t('conversations')} SET ${assignments.join(', ')}
       WHERE id = ${id} AND version = ${param(change.expectVersion, 'int')} RETURNING ${conversationColumns})`,
    );
  }

  const messages = change.messages ?? [];
  if (messages.length > 0) {
    const rows = messages.map((m) => ({
      position: m.position,
      id: m.id,
      role: m.role,
      parts: m.parts,
      metadata: m.metadata,
      created_at: ms(m.createdAt),
    }));
    parts.push(
      `m AS (INSERT INTO ${t('messages')} (conversation_key, position, id, role, parts, metadata, created_at)
       SELECT c.key, x.position, x.id, x.role, x.parts, x.metadata, x.created_at
       FROM c, json_to_recordset(${param(JSON.stringify(rows), 'json')})
         AS x(position int, id text, role text, parts json, metadata json, created_at bigint))`,
    );
  }

  if (actions.length > 0) {
    const rows = actions.map((a) => ({
      id: a.id,
      message_id: a.messageId,
      tool_call_id: a.toolCallId,
      tool_name: a.toolName,
      origin: a.origin,
      journal_index: a.journalIndex,
      status: a.status,
      request: a.request,
      created_at: ms(a.createdAt),
      expires_at: msOrNull(a.expiresAt),
      on_timeout: a.onTimeout,
      resolution: a.resolution,
      resolved_by: a.resolvedBy,
      resolved_at: msOrNull(a.resolvedAt),
      defaulted: a.defaulted,
      channel: a.channel,
      remind_at: a.remindAt && a.remindAt.length > 0 ? a.remindAt : null,
      answered_for: a.answeredFor ?? null,
    }));
    parts.push(
      `a AS (INSERT INTO ${t('actions')} (conversation_key, id, message_id, tool_call_id, tool_name, origin, journal_index,
         status, request, created_at, expires_at, on_timeout, resolution, resolved_by, resolved_at, defaulted, channel,
         remind_at, answered_for)
       SELECT c.key, x.id, x.message_id, x.tool_call_id, x.tool_name, x.origin, x.journal_index, x.status, x.request,
         x.created_at, x.expires_at, x.on_timeout, x.resolution, x.resolved_by, x.resolved_at, x.defaulted, x.channel,
         x.remind_at, x.answered_for
       FROM c, json_to_recordset(${param(JSON.stringify(rows), 'json')})
         AS x(id text, message_id text, tool_call_id text, tool_name text, origin text, journal_index int, status text,
           request json, created_at bigint, expires_at bigint, on_timeout text, resolution json, resolved_by text,
           resolved_at bigint, defaulted json, channel text, remind_at json, answered_for text))`,
    );
  }

  if (dbSettles.length > 0) {
    const rows = dbSettles.map((x) => ({
      id: x.id,
      status: x.status,
      resolution: x.resolution,
      resolved_by: x.resolvedBy,
      answered_for: x.answeredFor ?? null,
      channel: x.channel,
      resolved_at: ms(x.resolvedAt),
      set_defaulted: x.defaulted !== undefined,
      defaulted: x.defaulted ?? null,
    }));
    parts.push(
      `s AS (UPDATE ${t('actions')} AS t SET status = x.status, resolution = x.resolution, resolved_by = x.resolved_by,
         answered_for = x.answered_for, channel = x.channel, resolved_at = x.resolved_at, defaulted = CASE WHEN x.set_defaulted THEN x.defaulted ELSE t.defaulted END
       FROM c, json_to_recordset(${param(JSON.stringify(rows), 'json')})
         AS x(id text, status text, resolution json, resolved_by text, answered_for text, channel text, resolved_at bigint, set_defaulted boolean, defaulted json)
       WHERE t.conversation_key = c.key AND t.id = x.id AND t.status = 'pending' RETURNING t.id)`,
    );
  }

  const revise = change.revise ?? [];
  if (revise.length > 0) {
    const rows = revise.map((x) => ({
      id: x.id,
      request: x.request,
      set_expires: x.expiresAt !== undefined,
      expires_at: msOrNull(x.expiresAt ?? null),
      set_remind: x.remindAt !== undefined,
      remind_at: x.remindAt && x.remindAt.length > 0 ? x.remindAt : null,
    }));
    parts.push(
      `v AS (UPDATE ${t('actions')} AS t SET request = x.request,
         expires_at = CASE WHEN x.set_expires THEN x.expires_at ELSE t.expires_at END,
         remind_at = CASE WHEN x.set_remind THEN x.remind_at ELSE t.remind_at END
       FROM c, json_to_recordset(${param(JSON.stringify(rows), 'json')})
         AS x(id text, request json, set_expires boolean, expires_at bigint, set_remind boolean, remind_at json)
       WHERE t.conversation_key = c.key AND t.id = x.id AND t.status = 'pending' RETURNING t.id)`,
    );
  }

  if (events.length > 0) {
    const count = param(events.length, 'bigint');
    const rows = events.map((e, index) => ({ n: index + 1, type: e.type, data: e.data, at: ms(e.at) }));
    parts.push(
      `e AS (INSERT INTO ${t('events')} (conversation_key, seq, type, data, at)
       SELECT c.key, c.last_event_seq - ${count} + x.n, x.type, x.data, x.at
       FROM c, json_to_recordset(${param(JSON.stringify(rows), 'json')}) AS x(n bigint, type text, data json, at bigint))`,
      // Queued by the transaction and delivered when it commits, so a listener reads committed events; sent
      // only while some process listens (listen.ts, listenerLock).
      `n AS (SELECT pg_notify(${param(channel, 'text')}, json_build_object('conversationId', c.id, 'seq', c.last_event_seq)::text)
       FROM c WHERE NOT pg_try_advisory_xact_lock(${listenerLock(`$${values.length}`)}))`,
    );
  }

  const remember = dedupeRemember(change.remember ?? []);
  if (remember.length > 0) {
    const rows = remember.map((r) => ({
      tool_name: r.toolName,
      remembered_by: r.rememberedBy,
      remembered_at: ms(r.rememberedAt),
    }));
    parts.push(
      `r AS (INSERT INTO ${t('remembered_tools')} (conversation_key, tool_name, remembered_by, remembered_at)
       SELECT c.key, x.tool_name, x.remembered_by, x.remembered_at
       FROM c, json_to_recordset(${param(JSON.stringify(rows), 'json')}) AS x(tool_name text, remembered_by text, remembered_at bigint)
       ON CONFLICT (conversation_key, tool_name)
       DO UPDATE SET remembered_by = excluded.remembered_by, remembered_at = excluded.remembered_at)`,
    );
  }

  const deliveries = change.deliveries ?? [];
  if (deliveries.length > 0) {
    const rows = deliveries.map((d) => ({
      id: d.id,
      action_id: d.actionId,
      event: d.event,
      target: d.target,
      created_at: ms(d.createdAt),
    }));
    parts.push(
      `d AS (INSERT INTO ${t('deliveries')} (id, conversation_id, action_id, event, target, status, attempts, created_at, due_at)
       SELECT x.id, c.id, x.action_id, x.event, x.target, 'pending', 0, x.created_at, x.created_at
       FROM c, json_to_recordset(${param(JSON.stringify(rows), 'json')})
         AS x(id text, action_id text, event text, target json, created_at bigint))`,
    );
  }

  const selected = ['(SELECT row_to_json(c) FROM c) AS conversation'];
  // For this commit only (its transaction is the statement): it returns before its WAL flush.
  if (change.waitForFlush === false) selected.push(`set_config('synchronous_commit', 'off', true) AS unflushed`);
  if (!change.create) selected.push(`EXISTS (SELECT 1 FROM ${t('conversations')} WHERE id = ${id}) AS present`);
  // A CTE that only reads runs only when referenced: this is what makes the NOTIFY happen.
  if (events.length > 0) selected.push('(SELECT count(*) FROM n) AS notified');
  if (dbSettles.length > 0 || refuseLocally || revise.length > 0) {
    const settleFailed = [
      ...(dbSettles.length > 0 ? [`(SELECT count(*) FROM s) <> ${param(dbSettles.length, 'bigint')}`] : []),
      ...(revise.length > 0 ? [`(SELECT count(*) FROM v) <> ${param(revise.length, 'bigint')}`] : []),
      ...(refuseLocally ? ['true'] : []),
    ].join(' OR ');
    selected.push(
      `CASE WHEN EXISTS (SELECT 1 FROM c) AND (${settleFailed}) THEN ${schema}.heed_refuse('action_not_pending') END AS refused`,
    );
  }
  return { query: { text: `WITH ${parts.join(',\n')}\nSELECT ${selected.join(', ')}`, values }, refuseLocally };
}

/** Turns the statement's row into the store's answer. */
export function commitResult(change: Change, row: CommitRow): CommitResult {
  if (!row.conversation) {
    if (change.create) return { ok: false, reason: 'exists' };
    return { ok: false, reason: row.present ? 'version' : 'not_found' };
  }
  const conversation = toConversation(row.conversation);
  const events = change.events ?? [];
  const first = conversation.lastEventSeq - events.length + 1;
  const appended = events.map((e, index): EventRecord =>
    storedEvent({ conversationId: conversation.id, seq: first + index, type: e.type, data: e.data, at: iso(ms(e.at)) }),
  );
  return { ok: true, conversation, events: appended };
}

/**
 * A settlement of an action this same change inserts is applied to the inserted record (the statement
 * cannot see its own inserts). Settling one action twice, or an inserted action that is not pending,
 * is refused, but only after the compare-and-set, so a stale change still reports `version`.
 */
function splitSettlements(inserted: ActionRecord[], settle: ActionSettlement[]) {
  const actions = [...inserted];
  const index = new Map(actions.map((action, i) => [action.id, i]));
  const seen = new Set<string>();
  const dbSettles: ActionSettlement[] = [];
  let refuseLocally = false;
  for (const x of settle) {
    if (seen.has(x.id)) refuseLocally = true;
    seen.add(x.id);
    const at = index.get(x.id);
    if (at === undefined) {
      dbSettles.push(x);
      continue;
    }
    const action = actions[at];
    if (action.status !== 'pending') {
      refuseLocally = true;
      continue;
    }
    actions[at] = {
      ...action,
      status: x.status,
      resolution: x.resolution,
      resolvedBy: x.resolvedBy,
      ...(x.answeredFor !== undefined ? { answeredFor: x.answeredFor } : {}),
      channel: x.channel,
      resolvedAt: x.resolvedAt,
      ...(x.defaulted !== undefined ? { defaulted: x.defaulted } : {}),
    };
  }
  return { actions, dbSettles, refuseLocally };
}

/** The columns a patch sets; fields it leaves alone are not assigned. */
function patchAssignments(set: ConversationPatch, param: (value: unknown, type: string) => string): string[] {
  const out: string[] = [];
  if (set.status !== undefined) out.push(`status = ${param(set.status, 'text')}`);
  if (set.metadata !== undefined) out.push(`metadata = ${param(json(set.metadata), 'json')}`);
  if (set.actionDueAt !== undefined) out.push(`action_due_at = ${param(msOrNull(set.actionDueAt), 'bigint')}`);
  if (set.leaseOwner !== undefined) out.push(`lease_owner = ${param(set.leaseOwner, 'text')}`);
  if (set.leaseExpiresAt !== undefined) out.push(`lease_expires_at = ${param(msOrNull(set.leaseExpiresAt), 'bigint')}`);
  if (set.tokensUsed !== undefined) out.push(`tokens_used = ${param(set.tokensUsed, 'bigint')}`);
  if (set.intakeDone !== undefined) out.push(`intake_done = ${param(set.intakeDone, 'boolean')}`);
  if (set.queue !== undefined) out.push(`queue = ${param(queueJson(set.queue), 'json')}`);
  return out;
}

/** An empty queue is stored as NULL, so a conversation with nothing queued costs nothing. */
function queueJson(queue: ConversationPatch['queue']): string | null {
  return queue && queue.length > 0 ? JSON.stringify(queue) : null;
}

/** One row per tool (the last wins): an upsert may not touch the same row twice in one statement. */
function dedupeRemember<T extends { toolName: string }>(tools: T[]): T[] {
  return [...new Map(tools.map((tool) => [tool.toolName, tool])).values()];
}
