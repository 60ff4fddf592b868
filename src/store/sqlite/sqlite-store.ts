import Database from 'better-sqlite3';
import { HeedError } from '../../errors.js';
import type {
  ActionRecord,
  ConversationRecord,
  EventRecord,
  MessageRecord,
  RememberedTool,
} from '../../types.js';
import type { Change, CommitResult, ConversationFilter, PendingFilter, Store } from '../store.js';
import { migrations } from './migrations.js';

export interface SqliteStoreOptions {
  /** The database file; created when missing. */
  path: string;
  /**
   * `normal` (default): a committed change survives a process crash. `full`: it also survives a
   * power loss, at the cost of an fsync per commit.
   */
  synchronous?: 'normal' | 'full';
}

/** Opens the file the way the store needs it: WAL, the chosen `synchronous`, a 5 s busy timeout. */
export function openDatabase(options: SqliteStoreOptions): Database.Database {
  // The busy timeout lets a second instance on the same file (a restart, a second createHeed) wait its turn.
  const db = new Database(options.path, { timeout: 5000 });
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  for (const p of (process.env.HEED_EXP_PRAGMAS ?? '').split(';').filter(Boolean)) db.pragma(p); // EXPERIMENT
  return db;
}

/** The SQL of the queries that must use an index, exported for the query-plan tests. */
export const indexedQueries = {
  dueByAction: 'SELECT * FROM conversations WHERE action_due_at <= ? ORDER BY action_due_at LIMIT ?',
  dueByLease:
    "SELECT * FROM conversations WHERE status = 'running' AND lease_expires_at < ? ORDER BY lease_expires_at LIMIT ?",
  pendingActions: (filter: { owner: boolean; after: boolean }) =>
    'SELECT a.*, c.id AS conversation_id FROM actions a JOIN conversations c ON c.key = a.conversation_key ' +
    "WHERE a.status = 'pending'" +
    (filter.owner ? ' AND c.owner_id IS @ownerId' : '') +
    (filter.after ? ' AND (a.created_at, a.id) > (@afterCreatedAt, @afterId)' : '') +
    ' ORDER BY a.created_at, a.id LIMIT @limit',
};

/** A store in one SQLite file (better-sqlite3, WAL). Several instances may share the file. */
export function sqliteStore(options: SqliteStoreOptions): Store {
  const db = openDatabase(options);
  let statements: Statements | undefined;
  // Prepared on first use rather than at open: the tables exist only once migrate() ran.
  const s = () => (statements ??= prepare(db));
  const dynamic = new Map<string, Database.Statement>();
  const cached = (sql: string) => {
    let statement = dynamic.get(sql);
    if (!statement) dynamic.set(sql, (statement = db.prepare(sql)));
    return statement;
  };

  const commitInTransaction = db.transaction((change: Change): CommitResult => {
    const st = s();
    const set = change.set ?? {};
    const events = change.events ?? [];
    let row: ConversationRow | undefined;
    if (change.create) {
      const created = { ...change.create, ...definedOnly(set) };
      if (created.id !== change.conversationId) throw mismatch(change);
      row = st.insertConversation.get({
        ...conversationParams(created),
        lastEventSeq: created.lastEventSeq + events.length,
      }) as ConversationRow | undefined;
      if (!row) throw new Refusal('exists');
    } else {
      if (change.expectVersion === undefined) throw missingVersion(change);
      const lastAt = events.length > 0 ? events[events.length - 1].at : undefined;
      row = st.updateConversation.get({
        id: change.conversationId,
        expectVersion: change.expectVersion,
        status: set.status ?? null,
        setMetadata: flag(set.metadata),
        metadata: json(set.metadata ?? null),
        setActionDueAt: flag(set.actionDueAt),
        actionDueAt: msOrNull(set.actionDueAt ?? null),
        setLeaseOwner: flag(set.leaseOwner),
        leaseOwner: set.leaseOwner ?? null,
        setLeaseExpiresAt: flag(set.leaseExpiresAt),
        leaseExpiresAt: msOrNull(set.leaseExpiresAt ?? null),
        tokensUsed: set.tokensUsed ?? null,
        intakeDone: set.intakeDone === undefined ? null : Number(set.intakeDone),
        eventCount: events.length,
        updatedAt: set.updatedAt !== undefined ? ms(set.updatedAt) : lastAt !== undefined ? ms(lastAt) : Date.now(),
      }) as ConversationRow | undefined;
      if (!row) throw new Refusal(st.conversationExists.get(change.conversationId) ? 'version' : 'not_found');
    }
    const key = row.key;
    for (const m of change.messages ?? []) {
      st.insertMessage.run(key, m.position, m.id, m.role, JSON.stringify(m.parts), json(m.metadata), ms(m.createdAt));
    }
    for (const a of change.actions ?? []) {
      st.insertAction.run(
        key, a.id, a.messageId, a.toolCallId, a.toolName, a.origin, a.journalIndex, a.status,
        JSON.stringify(a.request), ms(a.createdAt), msOrNull(a.expiresAt), a.onTimeout, json(a.resolution),
        a.resolvedBy, msOrNull(a.resolvedAt), json(a.defaulted),
      );
    }
    for (const x of change.settle ?? []) {
      const { changes } = st.settleAction.run(
        x.status, JSON.stringify(x.resolution), x.resolvedBy, ms(x.resolvedAt),
        flag(x.defaulted), json(x.defaulted ?? null), key, x.id,
      );
      if (changes === 0) throw new Refusal('action_not_pending');
    }
    for (const r of change.remember ?? []) st.remember.run(key, r.toolName, r.rememberedBy, ms(r.rememberedAt));
    const conversation = toConversation(row);
    const appended: EventRecord[] = [];
    let seq = row.last_event_seq - events.length;
    for (const e of events) {
      seq += 1;
      st.insertEvent.run(key, seq, e.type, JSON.stringify(e.data), ms(e.at));
      appended.push({ conversationId: conversation.id, seq, type: e.type, data: e.data, at: iso(ms(e.at)) });
    }
    return { ok: true, conversation, events: appended };
  });

  return {
    async migrate() {
      db.transaction(() => {
        const current = db.pragma('user_version', { simple: true }) as number;
        const latest = migrations.length > 0 ? migrations[migrations.length - 1].version : 0;
        if (current > latest) {
          throw new HeedError('internal_error', `The database schema (version ${current}) is newer than this Heed (version ${latest}).`);
        }
        for (const migration of migrations) if (migration.version > current) db.exec(migration.sql);
        if (latest > current) db.pragma(`user_version = ${latest}`);
      }).immediate();
    },

    async commit(change) {
      try {
        // IMMEDIATE takes the write lock up front, so another connection cannot slip in between our reads and writes.
        return commitInTransaction.immediate(change);
      } catch (error) {
        if (error instanceof Refusal) return { ok: false, reason: error.reason };
        throw error;
      }
    },

    async getConversation(id) {
      const row = s().getConversation.get(id) as ConversationRow | undefined;
      return row && toConversation(row);
    },

    async listConversations(filter: ConversationFilter) {
      const where: string[] = [];
      const params: Record<string, unknown> = { limit: pageSize(filter.limit, 50) };
      if (filter.ownerId !== undefined) where.push('owner_id IS @ownerId'), (params.ownerId = filter.ownerId);
      if (filter.status !== undefined) where.push('status = @status'), (params.status = filter.status);
      if (filter.agent !== undefined) where.push('agent = @agent'), (params.agent = filter.agent);
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

    async listMessages(conversationId) {
      const rows = s().listMessages.all(conversationId) as MessageRow[];
      return rows.map((row) => toMessage(row, conversationId));
    },

    async getAction(conversationId, actionId) {
      const row = s().getAction.get(conversationId, actionId) as ActionRow | undefined;
      return row && toAction(row, conversationId);
    },

    async listActions(conversationId) {
      return (s().listActions.all(conversationId) as ActionRow[]).map((row) => toAction(row, conversationId));
    },

    async listPendingActions(filter: PendingFilter) {
      const params: Record<string, unknown> = { limit: pageSize(filter.limit, 50) };
      if (filter.ownerId !== undefined) params.ownerId = filter.ownerId;
      if (filter.after) {
        params.afterCreatedAt = ms(filter.after.createdAt);
        params.afterId = filter.after.id;
      }
      const sql = indexedQueries.pendingActions({ owner: filter.ownerId !== undefined, after: !!filter.after });
      const rows = cached(sql).all(params) as (ActionRow & { conversation_id: string })[];
      return rows.map((row) => toAction(row, row.conversation_id));
    },

    async listEvents(conversationId, options = {}) {
      const rows = s().listEvents.all(conversationId, options.after ?? 0, pageSize(options.limit, 500)) as EventRow[];
      return rows.map((row) => ({
        conversationId,
        seq: row.seq,
        type: row.type,
        data: JSON.parse(row.data),
        at: iso(row.at),
      }));
    },

    async listRememberedTools(conversationId) {
      const rows = s().listRemembered.all(conversationId) as RememberedRow[];
      return rows.map(
        (row): RememberedTool => ({ toolName: row.tool_name, rememberedBy: row.remembered_by, rememberedAt: iso(row.remembered_at) }),
      );
    },

    async forgetTool(conversationId, toolName) {
      return s().forget.run(conversationId, toolName).changes > 0;
    },

    async listDue(now, limit) {
      const at = ms(now);
      const size = pageSize(limit, limit);
      const st = s();
      const byId = new Map<string, { row: ConversationRow; dueAt: number }>();
      for (const row of st.dueByAction.all(at, size) as ConversationRow[]) byId.set(row.id, { row, dueAt: row.action_due_at! });
      for (const row of st.dueByLease.all(at, size) as ConversationRow[]) {
        const seen = byId.get(row.id);
        if (!seen || row.lease_expires_at! < seen.dueAt) byId.set(row.id, { row, dueAt: row.lease_expires_at! });
      }
      return [...byId.values()]
        .sort((a, b) => a.dueAt - b.dueAt || compare(a.row.id, b.row.id))
        .slice(0, size)
        .map((entry) => toConversation(entry.row));
    },

    async close() {
      if (db.open) db.close();
    },
  };
}

// ---------------------------------------------------------------- statements

type Statements = ReturnType<typeof prepare>;

function prepare(db: Database.Database) {
  const keyOf = '(SELECT key FROM conversations WHERE id = ?)';
  const actionColumns =
    'id, message_id, tool_call_id, tool_name, origin, journal_index, status, request, created_at, expires_at, on_timeout, resolution, resolved_by, resolved_at, defaulted';
  return {
    insertConversation: db.prepare(
      `INSERT INTO conversations (id, agent, owner_id, channel, status, version, metadata, created_at, updated_at,
         action_due_at, lease_owner, lease_expires_at, tokens_used, last_event_seq, intake_done)
       VALUES (@id, @agent, @ownerId, @channel, @status, @version, @metadata, @createdAt, @updatedAt,
         @actionDueAt, @leaseOwner, @leaseExpiresAt, @tokensUsed, @lastEventSeq, @intakeDone)
       ON CONFLICT (id) DO NOTHING RETURNING *`,
    ),
    updateConversation: db.prepare(
      `UPDATE conversations SET
         version = version + 1,
         status = coalesce(@status, status),
         metadata = CASE WHEN @setMetadata THEN @metadata ELSE metadata END,
         action_due_at = CASE WHEN @setActionDueAt THEN @actionDueAt ELSE action_due_at END,
         lease_owner = CASE WHEN @setLeaseOwner THEN @leaseOwner ELSE lease_owner END,
         lease_expires_at = CASE WHEN @setLeaseExpiresAt THEN @leaseExpiresAt ELSE lease_expires_at END,
         tokens_used = coalesce(@tokensUsed, tokens_used),
         intake_done = coalesce(@intakeDone, intake_done),
         last_event_seq = last_event_seq + @eventCount,
         updated_at = @updatedAt
       WHERE id = @id AND version = @expectVersion
       RETURNING *`,
    ),
    conversationExists: db.prepare('SELECT 1 FROM conversations WHERE id = ?').pluck(),
    getConversation: db.prepare('SELECT * FROM conversations WHERE id = ?'),
    insertMessage: db.prepare(
      'INSERT INTO messages (conversation_key, position, id, role, parts, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    insertAction: db.prepare(
      `INSERT INTO actions (conversation_key, ${actionColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    settleAction: db.prepare(
      `UPDATE actions SET status = ?, resolution = ?, resolved_by = ?, resolved_at = ?,
         defaulted = CASE WHEN ? THEN ? ELSE defaulted END
       WHERE conversation_key = ? AND id = ? AND status = 'pending'`,
    ),
    remember: db.prepare(
      `INSERT INTO remembered_tools (conversation_key, tool_name, remembered_by, remembered_at) VALUES (?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET remembered_by = excluded.remembered_by, remembered_at = excluded.remembered_at`,
    ),
    insertEvent: db.prepare('INSERT INTO events (conversation_key, seq, type, data, at) VALUES (?, ?, ?, ?, ?)'),
    listMessages: db.prepare(
      `SELECT position, id, role, parts, metadata, created_at FROM messages WHERE conversation_key = ${keyOf} ORDER BY position`,
    ),
    getAction: db.prepare(`SELECT ${actionColumns} FROM actions WHERE conversation_key = ${keyOf} AND id = ?`),
    listActions: db.prepare(
      `SELECT ${actionColumns} FROM actions WHERE conversation_key = ${keyOf} ORDER BY created_at, id`,
    ),
    listEvents: db.prepare(
      `SELECT seq, type, data, at FROM events WHERE conversation_key = ${keyOf} AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    listRemembered: db.prepare(
      `SELECT tool_name, remembered_by, remembered_at FROM remembered_tools WHERE conversation_key = ${keyOf} ORDER BY tool_name`,
    ),
    forget: db.prepare(`DELETE FROM remembered_tools WHERE conversation_key = ${keyOf} AND tool_name = ?`),
    dueByAction: db.prepare(indexedQueries.dueByAction),
    dueByLease: db.prepare(indexedQueries.dueByLease),
  };
}

// ---------------------------------------------------------------- rows

interface ConversationRow {
  key: number;
  id: string;
  agent: string;
  owner_id: string | null;
  channel: string | null;
  status: ConversationRecord['status'];
  version: number;
  metadata: string | null;
  created_at: number;
  updated_at: number;
  action_due_at: number | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  tokens_used: number;
  last_event_seq: number;
  intake_done: number;
}

interface MessageRow {
  position: number;
  id: string;
  role: MessageRecord['role'];
  parts: string;
  metadata: string | null;
  created_at: number;
}

interface ActionRow {
  id: string;
  message_id: string;
  tool_call_id: string;
  tool_name: string;
  origin: ActionRecord['origin'];
  journal_index: number;
  status: ActionRecord['status'];
  request: string;
  created_at: number;
  expires_at: number | null;
  on_timeout: ActionRecord['onTimeout'];
  resolution: string | null;
  resolved_by: string | null;
  resolved_at: number | null;
  defaulted: string | null;
}

interface EventRow {
  seq: number;
  type: EventRecord['type'];
  data: string;
  at: number;
}

interface RememberedRow {
  tool_name: string;
  remembered_by: string;
  remembered_at: number;
}

function conversationParams(c: ConversationRecord) {
  return {
    id: c.id,
    agent: c.agent,
    ownerId: c.ownerId,
    channel: c.channel,
    status: c.status,
    version: c.version,
    metadata: json(c.metadata),
    createdAt: ms(c.createdAt),
    updatedAt: ms(c.updatedAt),
    actionDueAt: msOrNull(c.actionDueAt),
    leaseOwner: c.leaseOwner,
    leaseExpiresAt: msOrNull(c.leaseExpiresAt),
    tokensUsed: c.tokensUsed,
    intakeDone: Number(c.intakeDone),
  };
}

function toConversation(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    agent: row.agent,
    ownerId: row.owner_id,
    channel: row.channel,
    status: row.status,
    version: row.version,
    metadata: parseOrNull(row.metadata),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    actionDueAt: isoOrNull(row.action_due_at),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: isoOrNull(row.lease_expires_at),
    tokensUsed: row.tokens_used,
    lastEventSeq: row.last_event_seq,
    intakeDone: row.intake_done === 1,
  };
}

function toMessage(row: MessageRow, conversationId: string): MessageRecord {
  return {
    id: row.id,
    conversationId,
    position: row.position,
    role: row.role,
    parts: JSON.parse(row.parts),
    metadata: parseOrNull(row.metadata),
    createdAt: iso(row.created_at),
  };
}

function toAction(row: ActionRow, conversationId: string): ActionRecord {
  const request = JSON.parse(row.request) as ActionRecord['request'];
  return {
    id: row.id,
    conversationId,
    messageId: row.message_id,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    kind: request.kind,
    origin: row.origin,
    journalIndex: row.journal_index,
    status: row.status,
    request,
    createdAt: iso(row.created_at),
    expiresAt: isoOrNull(row.expires_at),
    onTimeout: row.on_timeout,
    resolution: parseOrNull(row.resolution),
    resolvedBy: row.resolved_by,
    resolvedAt: isoOrNull(row.resolved_at),
    defaulted: parseOrNull(row.defaulted),
  };
}

// ---------------------------------------------------------------- helpers

/** Thrown inside the transaction to roll it back; turned into `{ ok: false, reason }`. */
class Refusal {
  constructor(readonly reason: 'version' | 'exists' | 'not_found' | 'action_not_pending') {}
}

function ms(value: string): number {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new HeedError('internal_error', `Not an ISO 8601 time: ${JSON.stringify(value)}.`);
  return time;
}
const msOrNull = (value: string | null) => (value === null ? null : ms(value));
const iso = (time: number) => new Date(time).toISOString();
const isoOrNull = (time: number | null) => (time === null ? null : iso(time));
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
const parseOrNull = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
/** 1 when the patch sets the field (even to null), 0 when it leaves it alone. */
const flag = (value: unknown) => (value === undefined ? 0 : 1);
const pageSize = (limit: number | undefined, fallback: number) => Math.max(0, Math.floor(limit ?? fallback));
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function mismatch(change: Change): HeedError {
  return new HeedError('internal_error', `A change to conversation ${change.conversationId} creates another id.`);
}

function missingVersion(change: Change): HeedError {
  return new HeedError('internal_error', `A change to conversation ${change.conversationId} has no expectVersion.`);
}
