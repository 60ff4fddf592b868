import type Database from 'better-sqlite3';
import { requireOptional } from '../../optional-dependency.js';
import { storedEvent } from '../../protocol/events.js';
import { HeedError } from '../../errors.js';
import { entriesNaming } from '../../groups.js';
import type { EventRecord, RememberedTool } from '../../types.js';
import type {
  Change,
  CommitResult,
  ConversationFilter,
  ConversationParts,
  ConversationPatch,
  ConversationRead,
  PendingFilter,
  Store,
  StoredValue,
  ValueWrites,
} from '../store.js';
import { startCheckpointer } from './checkpointer.js';
import { sqliteDeliveries } from './deliveries.js';
import { sqliteQueue } from './queue.js';
import { sqliteUpkeep } from './upkeep.js';
import { EVENT_SPAN, eventTypeCodes, MESSAGE_SPAN, migrations } from './migrations.js';
import {
  type ActionRow,
  type ConversationRow,
  type EventRow,
  type MessageRow,
  type RememberedRow,
  conversationParams,
  eventType,
  flag,
  patchValues,
  toAction,
  toConversation,
  toMessage,
} from './rows.js';
import { iso, ms, msOrNull } from '../times.js';
import { closesPause, definedOnly, json, pageSize } from '../values.js';

export interface SqliteStoreOptions {
  /** The database file; created when missing. */
  path: string;
  /**
   * `normal` (default): a committed change survives a process crash. `full`: it also survives a
   * power loss, at the cost of an fsync per commit.
   */
  synchronous?: 'normal' | 'full';
  /**
   * Where the WAL is copied back into the file: `background` (default) from a worker thread every
   * 100 ms, so no commit waits for it; `inline` lets SQLite do it inside a commit every 1,000 pages.
   */
  checkpoint?: 'background' | 'inline';
}

/** Opens the file the way the store needs it: WAL, the chosen `synchronous`, a 5 s busy timeout. */
export function openDatabase(options: SqliteStoreOptions): Database.Database {
  // The busy timeout lets a second instance on the same file (a restart, a second createHeed) wait its turn.
  // Loaded here, not at `import 'heed'`: a process that never opens SQLite never loads the driver.
  const Driver = requireOptional<typeof Database>('better-sqlite3', 'The SQLite store');
  const db = new Driver(options.path, { timeout: 5000 });
  db.pragma('busy_timeout = 5000');
  // Half the default: each commit writes whole pages to the WAL, and Heed's rows are small. Only a new
  // file takes it; an existing one keeps its page size.
  db.pragma('page_size = 2048');
  // Only a file with no table yet takes it: retention's deletes then hand pages back (incremental_vacuum).
  db.pragma('auto_vacuum = INCREMENTAL');
  // Deleted rows are overwritten, not left in free pages: an erased person's text does not stay in the file.
  db.pragma('secure_delete = ON');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  // With the background checkpointer this only catches a WAL that grew past ~40 MB (it fell behind).
  if (options.checkpoint !== 'inline') db.pragma('wal_autocheckpoint = 10000');
  return db;
}

/** The SQL of the queries that must use an index, exported for the query-plan tests. */
export const indexedQueries = {
  due: 'SELECT * FROM conversations WHERE sweep_at <= ? ORDER BY sweep_at, id LIMIT ?',
  pendingActions: (filter: { owner: boolean; after: boolean; approver?: boolean }) =>
    'SELECT a.*, c.id AS conversation_id FROM actions a JOIN conversations c ON c.key = a.conversation_key ' +
    "WHERE a.status = 'pending'" +
    (filter.owner && filter.approver
      ? " AND (c.owner_id IS @ownerId OR EXISTS (SELECT 1 FROM json_each(a.request, '$.approvers') WHERE value IN (SELECT value FROM json_each(@approvers))))"
      : filter.owner
        ? ' AND c.owner_id IS @ownerId'
        : '') +
    (filter.after ? ' AND (a.created_at, a.id) > (@afterCreatedAt, @afterId)' : '') +
    ' ORDER BY a.created_at, a.id LIMIT @limit',
};

/** A store in one SQLite file (better-sqlite3, WAL). Several instances may share the file. */
export function sqliteStore(options: SqliteStoreOptions): Store {
  const db = openDatabase(options);
  const checkpointer =
    options.checkpoint === 'inline' || options.path === ':memory:' ? undefined : startCheckpointer(options.path, 100);
  const full = options.synchronous === 'full';
  let statements: Statements | undefined;
  // Prepared on first use rather than at open: the tables exist only once migrate() ran.
  const prepared = () => (statements ??= prepare(db));
  const outbox = sqliteDeliveries(db);
  const queue = sqliteQueue(db);
  const upkeep = sqliteUpkeep(db);
  const dynamic = new Map<string, Database.Statement>();
  const cached = (sql: string) => {
    let statement = dynamic.get(sql);
    if (!statement) dynamic.set(sql, (statement = db.prepare(sql)));
    return statement;
  };

  /** Inserts or compare-and-sets the conversation row; returns it as stored, or throws a Refusal. */
  function writeConversation(change: Change, eventCount: number): ConversationRow {
    const set = change.set ?? {};
    if (change.create) {
      const created = { ...change.create, ...definedOnly(set) };
      const row = prepared().insertConversation.get(conversationParams(created, eventCount)) as
        ConversationRow | undefined;
      if (!row) throw new Refusal('exists');
      return row;
    }
    const updatedAt = set.updatedAt ?? change.events?.[eventCount - 1]?.at;
    const update = conversationUpdate(change.conversationId, change.expectVersion, set, {
      eventCount,
      updatedAt: updatedAt === undefined ? Date.now() : ms(updatedAt),
    });
    const row = cached(update.sql).get(update.params) as ConversationRow | undefined;
    if (!row) throw new Refusal(prepared().conversationExists.get(change.conversationId) ? 'version' : 'not_found');
    return row;
  }

  const commitInTransaction = db.transaction((change: Change): CommitResult => {
    const queries = prepared();
    const events = change.events ?? [];
    const row = writeConversation(change, events.length);
    const key = row.key;
    for (const m of change.messages ?? []) {
      if (!Number.isInteger(m.position) || m.position < 0 || m.position >= MESSAGE_SPAN) {
        throw new HeedError('invalid_request', `A conversation holds at most ${MESSAGE_SPAN} messages.`);
      }
      queries.insertMessage.run(
        key * MESSAGE_SPAN + m.position,
        key,
        m.position,
        m.id,
        m.role,
        JSON.stringify(m.parts),
        json(m.metadata),
        ms(m.createdAt),
      );
    }
    for (const a of change.actions ?? []) {
      queries.insertAction.run(
        key,
        a.id,
        a.messageId,
        a.toolCallId,
        a.toolName,
        a.origin,
        a.journalIndex,
        a.status,
        JSON.stringify(a.request),
        ms(a.createdAt),
        msOrNull(a.expiresAt),
        a.onTimeout,
        json(a.resolution),
        a.resolvedBy,
        msOrNull(a.resolvedAt),
        json(a.defaulted),
        a.channel,
        a.remindAt && a.remindAt.length > 0 ? JSON.stringify(a.remindAt) : null,
        a.answeredFor ?? null,
      );
    }
    for (const settlement of change.settle ?? []) {
      const { changes } = queries.settleAction.run(
        settlement.status,
        JSON.stringify(settlement.resolution),
        settlement.resolvedBy,
        settlement.answeredFor ?? null,
        settlement.channel,
        ms(settlement.resolvedAt),
        flag(settlement.defaulted),
        json(settlement.defaulted ?? null),
        key,
        settlement.id,
      );
      if (changes === 0) throw new Refusal('action_not_pending');
    }
    for (const revision of change.revise ?? []) {
      const revised = queries.reviseAction.run(
        JSON.stringify(revision.request),
        flag(revision.expiresAt),
        msOrNull(revision.expiresAt ?? null),
        flag(revision.remindAt),
        revision.remindAt && revision.remindAt.length > 0 ? JSON.stringify(revision.remindAt) : null,
        key,
        revision.id,
      );
      if (revised.changes === 0) throw new Refusal('action_not_pending');
    }
    for (const r of change.remember ?? []) queries.remember.run(key, r.toolName, r.rememberedBy, ms(r.rememberedAt));
    for (const d of change.deliveries ?? []) outbox.insert(change.conversationId, d);
    const conversation = toConversation(row);
    const appended: EventRecord[] = [];
    let seq = row.last_event_seq - events.length;
    for (const e of events) {
      seq += 1;
      const at = ms(e.at);
      queries.insertEvent.run({ key, seq, type: eventTypeCodes[e.type], data: JSON.stringify(e.data), at });
      appended.push(storedEvent({ conversationId: conversation.id, seq, type: e.type, data: e.data, at: iso(at) }));
    }
    upkeep.append(change.audit);
    return { ok: true, conversation, events: appended };
  });

  // One read transaction: one snapshot, and SQLite takes and drops its read lock once instead of per statement.
  const readInTransaction = db.transaction((id: string, parts: ConversationParts): ConversationRead | undefined => {
    const queries = prepared();
    const row = queries.getConversation.get(id) as ConversationRow | undefined;
    if (!row) return undefined;
    const read: ConversationRead = { conversation: toConversation(row) };
    const actions =
      parts.actions || parts.messagesWhenClosing !== undefined
        ? (queries.actionsOfKey.all(row.key) as ActionRow[]).map((action) => toAction(action, id))
        : undefined;
    if (parts.actions) read.actions = actions;
    const closing =
      parts.messagesWhenClosing !== undefined &&
      actions !== undefined &&
      closesPause(actions, parts.messagesWhenClosing);
    if (parts.messages || closing)
      read.messages = (queries.messagesOfKey.all({ key: row.key }) as MessageRow[]).map((message) =>
        toMessage(message, id),
      );
    if (parts.remembered) read.remembered = (queries.rememberedOfKey.all(row.key) as RememberedRow[]).map(toRemembered);
    return read;
  });

  /** Puts and drops values, inside the caller's transaction: every value write of the store goes through here. */
  function writeValues(values: ValueWrites): void {
    const put = cached(
      'INSERT INTO adapter_values (scope, key, value) VALUES (?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value',
    );
    for (const { scope, key, value } of values.put ?? []) put.run(scope, key, value);
    for (const { scope, keys } of values.drop ?? []) {
      if (keys === undefined) cached('DELETE FROM adapter_values WHERE scope = ?').run(scope);
      else for (const key of keys) cached('DELETE FROM adapter_values WHERE scope = ? AND key = ?').run(scope, key);
    }
  }

  return {
    async migrate() {
      db.transaction(() => {
        const current = db.pragma('user_version', { simple: true }) as number;
        const latest = migrations.length > 0 ? migrations[migrations.length - 1].version : 0;
        if (current > latest) {
          throw new HeedError(
            'internal_error',
            `The database schema (version ${current}) is newer than this Heed (version ${latest}).`,
          );
        }
        for (const migration of migrations) if (migration.version > current) db.exec(migration.sql);
        if (latest > current) db.pragma(`user_version = ${latest}`);
      }).immediate();
    },

    async commit(change) {
      // At FULL, a commit nobody waits on (`waitForFlush: false`) is written at NORMAL: into the WAL without an
      // fsync. The next commit at FULL syncs the WAL file, this commit's frames with it.
      const unflushed = full && change.waitForFlush === false;
      if (unflushed) db.pragma('synchronous = NORMAL');
      try {
        // IMMEDIATE takes the write lock up front, so another connection cannot slip in between our reads and writes.
        return commitInTransaction.immediate(change);
      } catch (error) {
        if (error instanceof Refusal) return { ok: false, reason: error.reason };
        throw error;
      } finally {
        if (unflushed) db.pragma('synchronous = FULL');
      }
    },

    async getConversation(id) {
      const row = prepared().getConversation.get(id) as ConversationRow | undefined;
      return row && toConversation(row);
    },

    async readConversation(id, parts) {
      return readInTransaction(id, parts);
    },

    async listConversations(filter: ConversationFilter) {
      const where: string[] = [];
      const params: Record<string, unknown> = { limit: pageSize(filter.limit, 50) };
      if (filter.ownerId !== undefined) (where.push('owner_id IS @ownerId'), (params.ownerId = filter.ownerId));
      if (filter.status !== undefined) (where.push('status = @status'), (params.status = filter.status));
      if (filter.agent !== undefined) (where.push('agent = @agent'), (params.agent = filter.agent));
      if (filter.search !== undefined) {
        // instr, not LIKE: the text is matched as written, "%" and "_" included.
        where.push(
          "(instr(lower(agent), lower(@search)) > 0 OR (json_type(metadata, '$.title') = 'text' AND instr(lower(json_extract(metadata, '$.title')), lower(@search)) > 0))",
        );
        params.search = filter.search;
      }
      if (filter.before) {
        where.push('(updated_at, id) < (@beforeUpdatedAt, @beforeId)');
        params.beforeUpdatedAt = ms(filter.before.updatedAt);
        params.beforeId = filter.before.id;
      }
      const sql =
        'SELECT * FROM conversations' +
        (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
        ' ORDER BY updated_at DESC, id DESC LIMIT @limit';
      return (cached(sql).all(params) as ConversationRow[]).map(toConversation);
    },

    async listMessages(conversationId, page = {}) {
      const rows = (
        page.before === undefined && page.limit === undefined
          ? prepared().listMessages.all(conversationId)
          : prepared().listMessagePage.all({ id: conversationId, before: page.before ?? null, limit: page.limit ?? -1 })
      ) as MessageRow[];
      if (page.before !== undefined || page.limit !== undefined) rows.reverse();
      return rows.map((row) => toMessage(row, conversationId));
    },

    async getAction(conversationId, actionId) {
      const row = prepared().getAction.get(conversationId, actionId) as ActionRow | undefined;
      return row && toAction(row, conversationId);
    },

    async listActions(conversationId) {
      return (prepared().listActions.all(conversationId) as ActionRow[]).map((row) => toAction(row, conversationId));
    },

    async listPendingActions(filter: PendingFilter) {
      const params: Record<string, unknown> = { limit: pageSize(filter.limit, 50) };
      if (filter.ownerId !== undefined) params.ownerId = filter.ownerId;
      if (filter.after) {
        params.afterCreatedAt = ms(filter.after.createdAt);
        params.afterId = filter.after.id;
      }
      const approver = filter.ownerId !== undefined && filter.approver !== undefined;
      // The entries that name them: their user id and their groups (src/groups.ts says which).
      if (approver)
        params.approvers = JSON.stringify(entriesNaming({ userId: filter.approver ?? null, groups: filter.groups }));
      const sql = indexedQueries.pendingActions({
        owner: filter.ownerId !== undefined,
        after: !!filter.after,
        approver,
      });
      const rows = cached(sql).all(params) as (ActionRow & { conversation_id: string })[];
      return rows.map((row) => toAction(row, row.conversation_id));
    },

    async findAction(actionId) {
      return queue.findAction(actionId);
    },

    async countPending(now) {
      return queue.countPending(now);
    },

    async listDecisionTimes(since, limit) {
      return queue.listDecisionTimes(since, limit);
    },

    async listEvents(conversationId, options = {}) {
      const rows = prepared().listEvents.all({
        id: conversationId,
        after: options.after ?? 0,
        limit: pageSize(options.limit, 500),
      }) as EventRow[];
      return rows.map((row) =>
        storedEvent({
          conversationId,
          seq: row.seq,
          type: eventType(row.type),
          data: JSON.parse(row.data),
          at: iso(row.at),
        }),
      );
    },

    async listRememberedTools(conversationId) {
      return (prepared().listRemembered.all(conversationId) as RememberedRow[]).map(toRemembered);
    },

    async forgetTool(conversationId, toolName) {
      return prepared().forget.run(conversationId, toolName).changes > 0;
    },

    async listDue(now, limit) {
      return (prepared().due.all(ms(now), pageSize(limit, limit)) as ConversationRow[]).map(toConversation);
    },

    async claimDeliveries(now, until, limit) {
      return outbox.claim(now, until, limit);
    },

    async finishDelivery(id, outcome) {
      outbox.finish(id, outcome);
    },

    async listDeliveries(filter) {
      return outbox.list(filter);
    },

    async secret(name) {
      return outbox.secret(name);
    },

    async listValues(scope) {
      return cached('SELECT key, value FROM adapter_values WHERE scope = ? ORDER BY key').all(scope) as StoredValue[];
    },

    async putValues(values) {
      db.transaction(() => writeValues({ put: values })).immediate();
    },

    async deleteValues(scope, keys) {
      db.transaction(() => writeValues({ drop: [{ scope, keys }] })).immediate();
    },

    async swapValue(scope, key, expected, next) {
      const read = cached('SELECT value FROM adapter_values WHERE scope = ? AND key = ?').pluck();
      // Read and write in one immediate transaction: no other process writes between them.
      return db
        .transaction(() => {
          if (((read.get(scope, key) as string | undefined) ?? null) !== expected) return false;
          writeValues(next === null ? { drop: [{ scope, keys: [key] }] } : { put: [{ scope, key, value: next }] });
          return true;
        })
        .immediate();
    },

    async appendAudit(append, values) {
      db.transaction(() => {
        if (values) writeValues(values);
        upkeep.append(append);
      }).immediate();
    },

    async listAudit(page) {
      return upkeep.list(page);
    },

    async auditAnchor() {
      return upkeep.anchor();
    },

    async pruneAudit(before) {
      return upkeep.prune(before);
    },

    async deleteFinished(before, limit) {
      return upkeep.deleteFinished(before, limit);
    },

    async erasePerson(erasure) {
      return upkeep.erase(erasure);
    },

    async close() {
      await checkpointer?.stop();
      if (db.open) db.close();
    },
  };
}

// ---------------------------------------------------------------- statements

type Statements = ReturnType<typeof prepare>;

function prepare(db: Database.Database) {
  const keyOf = '(SELECT key FROM conversations WHERE id = ?)';
  const actionColumns =
    'id, message_id, tool_call_id, tool_name, origin, journal_index, status, request, created_at, expires_at, ' +
    'on_timeout, resolution, resolved_by, resolved_at, defaulted, channel, remind_at, answered_for';
  return {
    insertConversation: db.prepare(
      `INSERT INTO conversations (id, agent, owner_id, channel, status, version, metadata, created_at, updated_at,
         action_due_at, lease_owner, lease_expires_at, tokens_used, last_event_seq, intake_done, queue)
       VALUES (@id, @agent, @ownerId, @channel, @status, @version, @metadata, @createdAt, @updatedAt,
         @actionDueAt, @leaseOwner, @leaseExpiresAt, @tokensUsed, @lastEventSeq, @intakeDone, @queue)
       ON CONFLICT (id) DO NOTHING RETURNING *`,
    ),
    conversationExists: db.prepare('SELECT 1 FROM conversations WHERE id = ?').pluck(),
    getConversation: db.prepare('SELECT * FROM conversations WHERE id = ?'),
    insertMessage: db.prepare(
      'INSERT INTO messages (rowid, conversation_key, position, id, role, parts, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    insertAction: db.prepare(
      `INSERT INTO actions (conversation_key, ${actionColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    settleAction: db.prepare(
      `UPDATE actions SET status = ?, resolution = ?, resolved_by = ?, answered_for = ?, channel = ?, resolved_at = ?,
         defaulted = CASE WHEN ? THEN ? ELSE defaulted END
       WHERE conversation_key = ? AND id = ? AND status = 'pending'`,
    ),
    reviseAction: db.prepare(
      `UPDATE actions SET request = ?, expires_at = CASE WHEN ? THEN ? ELSE expires_at END,
         remind_at = CASE WHEN ? THEN ? ELSE remind_at END
       WHERE conversation_key = ? AND id = ? AND status = 'pending'`,
    ),
    remember: db.prepare(
      `INSERT INTO remembered_tools (conversation_key, tool_name, remembered_by, remembered_at) VALUES (?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET remembered_by = excluded.remembered_by, remembered_at = excluded.remembered_at`,
    ),
    insertEvent: db.prepare(
      `INSERT INTO events (rowid, type, data, at) VALUES (@key * ${EVENT_SPAN} + @seq, @type, @data, @at)`,
    ),
    listMessages: db.prepare(
      `WITH c AS (SELECT key * ${MESSAGE_SPAN} AS first FROM conversations WHERE id = ?)
       SELECT position, id, role, parts, metadata, created_at FROM messages, c
       WHERE messages.rowid BETWEEN c.first AND c.first + ${MESSAGE_SPAN - 1} ORDER BY messages.rowid`,
    ),
    // Newest first from the end (or from the message `before`, found by reading only the columns up to id).
    listMessagePage: db.prepare(
      `WITH c AS (SELECT key * ${MESSAGE_SPAN} AS first FROM conversations WHERE id = @id),
       b AS (SELECT CASE WHEN @before IS NULL THEN c.first + ${MESSAGE_SPAN}
               ELSE (SELECT messages.rowid FROM messages WHERE messages.rowid BETWEEN c.first AND c.first + ${MESSAGE_SPAN - 1} AND messages.id = @before) END AS last
             FROM c)
       SELECT position, id, role, parts, metadata, created_at FROM messages, c, b
       WHERE messages.rowid >= c.first AND messages.rowid < b.last ORDER BY messages.rowid DESC LIMIT @limit`,
    ),
    getAction: db.prepare(`SELECT ${actionColumns} FROM actions WHERE conversation_key = ${keyOf} AND id = ?`),
    listActions: db.prepare(
      `SELECT ${actionColumns} FROM actions WHERE conversation_key = ${keyOf} ORDER BY created_at, id`,
    ),
    // The same reads by the conversation's key, for readConversation (which has the row already).
    messagesOfKey: db.prepare(
      `SELECT position, id, role, parts, metadata, created_at FROM messages
       WHERE rowid BETWEEN @key * ${MESSAGE_SPAN} AND @key * ${MESSAGE_SPAN} + ${MESSAGE_SPAN - 1} ORDER BY rowid`,
    ),
    actionsOfKey: db.prepare(`SELECT ${actionColumns} FROM actions WHERE conversation_key = ? ORDER BY created_at, id`),
    rememberedOfKey: db.prepare(
      'SELECT tool_name, remembered_by, remembered_at FROM remembered_tools WHERE conversation_key = ? ORDER BY tool_name',
    ),
    listEvents: db.prepare(
      `WITH c AS (SELECT key * ${EVENT_SPAN} AS first FROM conversations WHERE id = @id)
       SELECT events.rowid - c.first AS seq, type, data, at FROM events, c
       WHERE events.rowid > c.first + @after AND events.rowid < c.first + ${EVENT_SPAN} ORDER BY events.rowid LIMIT @limit`,
    ),
    listRemembered: db.prepare(
      `SELECT tool_name, remembered_by, remembered_at FROM remembered_tools WHERE conversation_key = ${keyOf} ORDER BY tool_name`,
    ),
    forget: db.prepare(`DELETE FROM remembered_tools WHERE conversation_key = ${keyOf} AND tool_name = ?`),
    due: db.prepare(indexedQueries.due),
  };
}

/**
 * The compare-and-set UPDATE for a change. It assigns only the columns the patch sets: SQLite rewrites
 * an index entry whenever a statement assigns one of its columns, even to the same value.
 */
function conversationUpdate(
  id: string,
  expectVersion: number,
  set: ConversationPatch,
  always: { eventCount: number; updatedAt: number },
) {
  const values = patchValues(set);
  const assignments = [
    'version = version + 1',
    'last_event_seq = last_event_seq + @eventCount',
    'updated_at = @updatedAt',
    ...Object.keys(values).map((column) => `${column} = @${column}`),
  ];
  return {
    sql: `UPDATE conversations SET ${assignments.join(', ')} WHERE id = @id AND version = @expectVersion RETURNING *`,
    // Keys first, then the spreads (src/objects.ts says why): no column name is one of these.
    params: { id, expectVersion, ...always, ...values },
  };
}

// ---------------------------------------------------------------- helpers

function toRemembered(row: RememberedRow): RememberedTool {
  return { toolName: row.tool_name, rememberedBy: row.remembered_by, rememberedAt: iso(row.remembered_at) };
}

/** Thrown inside the transaction to roll it back; turned into `{ ok: false, reason }`. */
class Refusal {
  constructor(readonly reason: 'version' | 'exists' | 'not_found' | 'action_not_pending') {}
}
