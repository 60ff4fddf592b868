import { createHash } from 'node:crypto';
import { HeedError } from '../../errors.js';
import { entriesNaming } from '../../groups.js';
import type { ConversationFilter, ConversationRead, PendingFilter, Store, StoredValue, ValueWrites } from '../store.js';
import { type CommitRow, commitResult, commitStatement } from './commit.js';
import { postgresDeliveries } from './deliveries.js';
import { postgresUpkeep } from './upkeep.js';
import { postgresQueue } from './queue.js';
import { listenForEvents } from './listen.js';
import { migrations, refusalCode } from './migrations.js';
import {
  holdErrors,
  type ListenConnection,
  type PoolLike,
  type QueryConfig,
  openPool,
  poolListenConnection,
  quoteIdentifier,
} from './pool.js';
import {
  type ActionRow,
  type ConversationRow,
  type EventRow,
  type MessageRow,
  type RememberedRow,
  actionColumns,
  conversationColumns,
  toAction,
  toConversation,
  toEvent,
  toMessage,
  toRemembered,
} from './rows.js';
import { ms } from '../times.js';
import { pageSize } from '../values.js';

export type { PoolLike } from './pool.js';

/** What a migration's statements may take (ten minutes), instead of the pool's query timeout. */
const MIGRATION_TIMEOUT_MS = 600_000;

type ReadRow = ConversationRow & {
  messages: MessageRow[] | null;
  actions: ActionRow[] | null;
  remembered: RememberedRow[] | null;
};

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:5432/database`; the store opens (and closes) its own pool. */
  connectionString?: string;
  /**
   * A pool you manage instead (`new pg.Pool(...)` or compatible); `close()` leaves it open. Live events
   * across instances then hold one of its connections for LISTEN.
   */
  pool?: PoolLike;
  /** Connections in the store's own pool (default 10), plus one for LISTEN. */
  max?: number;
  /** Schema for Heed's tables (default `public`); created when missing. */
  schema?: string;
  /**
   * `on` (default): a commit returns once the server has flushed it to disk. `off` (opt-in): it returns
   * before that flush, several times faster per commit. A crash of a Heed process still loses nothing;
   * a crash of the PostgreSQL server or its machine may lose the commits of its last moments (up to
   * three times `wal_writer_delay`, 600 ms by default), without corrupting anything. Applies to the
   * store's own pool; with `pool`, set `synchronous_commit` on your connections yourself.
   */
  synchronousCommit?: 'on' | 'off';
  /**
   * Milliseconds a statement of the store's own pool may wait for its answer (default 10,000), and a new
   * connection for the server (default 5,000). Past them the call fails with `store_unavailable` (503):
   * a database cut off by the network answers a request in seconds instead of never. Migrations at
   * start get ten minutes. With `pool`, set `query_timeout` and `connectionTimeoutMillis` on it yourself.
   */
  queryTimeoutMs?: number;
  connectTimeoutMs?: number;
}

/** The NOTIFY channel commits announce their events on. */
export function eventChannel(schema: string): string {
  // Channel names are identifiers (63 bytes at most): another schema gets a short hash of its name.
  return schema === 'public'
    ? 'heed_events'
    : `heed_events_${createHash('sha1').update(schema).digest('hex').slice(0, 16)}`;
}

/**
 * A store in PostgreSQL, for several Heed instances on one database. Every change is one statement
 * (compare-and-set on the conversation's version), and commits NOTIFY the other instances.
 */
export function postgresStore(options: PostgresStoreOptions): Store {
  if (!options.pool && !options.connectionString) {
    throw new HeedError('invalid_config', 'postgresStore needs a connectionString or a pool.');
  }
  const schemaName = options.schema ?? 'public';
  const schema = quoteIdentifier(schemaName);
  const channel = eventChannel(schemaName);
  const t = (table: string) => `${schema}.${table}`;

  let opened: Promise<{ pool: PoolLike; listenConnection: () => Promise<ListenConnection> }> | undefined;
  const open = () =>
    (opened ??= options.pool
      ? Promise.resolve({ pool: options.pool, listenConnection: poolListenConnection(options.pool) })
      : openPool({
          connectionString: options.connectionString!,
          max: options.max ?? 10,
          synchronousCommit: options.synchronousCommit,
          queryTimeoutMs: options.queryTimeoutMs,
          connectTimeoutMs: options.connectTimeoutMs,
        }));
  const listeners = new Set<() => Promise<void>>();
  let closed = false;

  // Statements are named (prepared once per connection) by a hash of their text: the same name for
  // the same text on every connection, even when several stores share a pool.
  const names = new Map<string, string>();
  const named = (text: string) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `heed_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
    return name;
  };
  async function query<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
    const { pool } = await open();
    return (await pool.query<Row>({ name: named(text), text, values } satisfies QueryConfig)).rows;
  }

  /** Puts (in one statement) and drops values through `run` (the pool, or a transaction's connection). */
  async function writeValues(
    run: (text: string, values: unknown[]) => Promise<unknown>,
    values: ValueWrites,
  ): Promise<void> {
    const put = values.put ?? [];
    if (put.length > 0)
      await run(
        `INSERT INTO ${t('adapter_values')} (scope, key, value) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
         ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value`,
        [put.map((v) => v.scope), put.map((v) => v.key), put.map((v) => v.value)],
      );
    for (const { scope, keys } of values.drop ?? []) {
      if (keys === undefined) await run(`DELETE FROM ${t('adapter_values')} WHERE scope = $1`, [scope]);
      else await run(`DELETE FROM ${t('adapter_values')} WHERE scope = $1 AND key = ANY($2::text[])`, [scope, keys]);
    }
  }

  const outbox = postgresDeliveries(query, t);
  const queue = postgresQueue(query, t);
  const upkeep = postgresUpkeep(open, t);
  const keyOf = `(SELECT key FROM ${t('conversations')} WHERE id = $1)`;
  const sql = {
    getConversation: `SELECT ${conversationColumns} FROM ${t('conversations')} WHERE id = $1`,
    listMessages: `SELECT position, id, role, parts, metadata, created_at FROM ${t('messages')} WHERE conversation_key = ${keyOf} ORDER BY position`,
    // Newest first, from the end or from the message `before` (an unknown id selects none); LIMIT NULL is no limit.
    listMessagePage: `SELECT position, id, role, parts, metadata, created_at FROM ${t('messages')} m
      WHERE m.conversation_key = ${keyOf}
        AND ($2::text IS NULL OR m.position < (SELECT b.position FROM ${t('messages')} b WHERE b.conversation_key = m.conversation_key AND b.id = $2))
      ORDER BY m.position DESC LIMIT $3`,
    getAction: `SELECT ${actionColumns} FROM ${t('actions')} WHERE conversation_key = ${keyOf} AND id = $2`,
    listActions: `SELECT ${actionColumns} FROM ${t('actions')} WHERE conversation_key = ${keyOf} ORDER BY created_at, id`,
    listEvents: `SELECT seq, type, data, at FROM ${t('events')} WHERE conversation_key = ${keyOf} AND seq > $2 ORDER BY seq LIMIT $3`,
    listRemembered: `SELECT tool_name, remembered_by, remembered_at FROM ${t('remembered_tools')} WHERE conversation_key = ${keyOf} ORDER BY tool_name`,
    // A conversation with the parts asked for ($2 messages, $3 actions, $4 remembered tools; $5 messages when
    // that action is the one pending) in one statement, so one round trip and one snapshot. row_to_json keeps
    // the column names, so the rows convert as usual.
    readConversation: `SELECT ${conversationColumns},
      CASE WHEN $2 OR ($5::text IS NOT NULL
        AND EXISTS (SELECT 1 FROM ${t('actions')} WHERE conversation_key = c.key AND id = $5 AND status = 'pending')
        AND NOT EXISTS (SELECT 1 FROM ${t('actions')} WHERE conversation_key = c.key AND id <> $5 AND status = 'pending')) THEN (SELECT coalesce(json_agg(m ORDER BY m.position), '[]') FROM (SELECT position, id, role, parts, metadata, created_at
        FROM ${t('messages')} WHERE conversation_key = c.key) m) END AS messages,
      CASE WHEN $3 THEN (SELECT coalesce(json_agg(a ORDER BY a.created_at, a.id), '[]') FROM (SELECT ${actionColumns}
        FROM ${t('actions')} WHERE conversation_key = c.key) a) END AS actions,
      CASE WHEN $4 THEN (SELECT coalesce(json_agg(r ORDER BY r.tool_name), '[]') FROM (SELECT tool_name, remembered_by, remembered_at
        FROM ${t('remembered_tools')} WHERE conversation_key = c.key) r) END AS remembered
      FROM ${t('conversations')} c WHERE id = $1`,
    forget: `DELETE FROM ${t('remembered_tools')} WHERE conversation_key = ${keyOf} AND tool_name = $2`,
    // Two index range scans (one per partial index), merged; a conversation due both ways counts once.
    listDue: `(SELECT ${conversationColumns}, action_due_at AS due FROM ${t('conversations')} WHERE action_due_at <= $1 ORDER BY action_due_at LIMIT $2)
       UNION ALL
       (SELECT ${conversationColumns}, lease_expires_at AS due FROM ${t('conversations')}
         WHERE status = 'running' AND lease_expires_at < $1 ORDER BY lease_expires_at LIMIT $2)
       ORDER BY due, id`,
  };

  return {
    async migrate() {
      const { pool } = await open();
      const client = await pool.connect();
      const unhold = holdErrors(client);
      // A migration, or waiting for another instance's, may take longer than an ordinary statement.
      const run = (text: string, values?: unknown[]) =>
        client.query({ text, values, query_timeout: MIGRATION_TIMEOUT_MS });
      try {
        await run('BEGIN');
        // Two instances starting together: the second waits here, then finds the schema up to date.
        await run('SELECT pg_advisory_xact_lock(hashtext($1))', [`heed:migrate:${schemaName}`]);
        if (schemaName !== 'public') await run(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await run(
          `CREATE TABLE IF NOT EXISTS ${t('heed_migrations')} (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`,
        );
        const [{ version }] = (
          await client.query<{ version: number }>({
            text: `SELECT coalesce(max(version), 0) AS version FROM ${t('heed_migrations')}`,
            query_timeout: MIGRATION_TIMEOUT_MS,
          })
        ).rows;
        const latest = migrations.length > 0 ? migrations[migrations.length - 1].version : 0;
        if (version > latest) {
          throw new HeedError(
            'internal_error',
            `The database schema (version ${version}) is newer than this Heed (version ${latest}).`,
          );
        }
        for (const migration of migrations) {
          if (migration.version <= version) continue;
          await run(migration.sql.replaceAll('{schema}', schema));
          await run(`INSERT INTO ${t('heed_migrations')} (version, applied_at) VALUES ($1, $2)`, [
            migration.version,
            Date.now(),
          ]);
        }
        await run('COMMIT');
        unhold();
        client.release();
      } catch (error) {
        // The error below is what the caller gets; a ROLLBACK on a broken connection fails too, and the release destroys it.
        await run('ROLLBACK').catch(() => undefined);
        unhold();
        client.release(error as Error);
        throw error;
      }
    },

    async commit(change) {
      const { query: statement } = commitStatement(schema, channel, change);
      const { pool } = await open();
      try {
        const audit = change.audit;
        if (audit && audit.entries.length > 0) {
          // The decision and its audit entries in one transaction: the statement first, then the chain's head
          // (locked only once the conversation's row is), so the head is held for as short a time as can be.
          return await upkeep.transaction(async (run, client) => {
            const result = await client.query<CommitRow>({ ...statement, name: named(statement.text) });
            const committed = commitResult(change, result.rows[0]);
            if (committed.ok) await upkeep.append(run, audit);
            return committed;
          });
        }
        const result = await pool.query<CommitRow>({ ...statement, name: named(statement.text) });
        return commitResult(change, result.rows[0]);
      } catch (error) {
        if ((error as { code?: string }).code === refusalCode) return { ok: false, reason: 'action_not_pending' };
        throw error;
      }
    },

    async getConversation(id) {
      const [row] = await query<ConversationRow>(sql.getConversation, [id]);
      return row && toConversation(row);
    },

    async readConversation(id, parts) {
      const [row] = await query<ReadRow>(sql.readConversation, [
        id,
        !!parts.messages,
        !!parts.actions,
        !!parts.remembered,
        parts.messagesWhenClosing ?? null,
      ]);
      if (!row) return undefined;
      const read: ConversationRead = { conversation: toConversation(row) };
      if (row.messages) read.messages = row.messages.map((message) => toMessage(message, id));
      if (row.actions) read.actions = row.actions.map((action) => toAction(action, id));
      if (row.remembered) read.remembered = row.remembered.map(toRemembered);
      return read;
    },

    async listConversations(filter: ConversationFilter) {
      const where: string[] = [];
      const values: unknown[] = [];
      const param = (value: unknown, type: string) => (values.push(value), `$${values.length}::${type}`);
      if (filter.ownerId === null) where.push('owner_id IS NULL');
      else if (filter.ownerId !== undefined) where.push(`owner_id = ${param(filter.ownerId, 'text')}`);
      if (filter.status !== undefined) where.push(`status = ${param(filter.status, 'text')}`);
      if (filter.agent !== undefined) where.push(`agent = ${param(filter.agent, 'text')}`);
      if (filter.search !== undefined) {
        // strpos, not LIKE: the text is matched as written, "%" and "_" included.
        const search = param(filter.search, 'text');
        where.push(
          `(strpos(lower(agent), lower(${search})) > 0 OR (json_typeof(metadata->'title') = 'string' AND strpos(lower(metadata->>'title'), lower(${search})) > 0))`,
        );
      }
      if (filter.before) {
        where.push(
          `(updated_at, id) < (${param(ms(filter.before.updatedAt), 'bigint')}, ${param(filter.before.id, 'text')})`,
        );
      }
      const text =
        `SELECT ${conversationColumns} FROM ${t('conversations')}` +
        (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
        ` ORDER BY updated_at DESC, id DESC LIMIT ${param(pageSize(filter.limit, 50), 'int')}`;
      return (await query<ConversationRow>(text, values)).map(toConversation);
    },

    async listMessages(conversationId, page = {}) {
      if (page.before === undefined && page.limit === undefined) {
        return (await query<MessageRow>(sql.listMessages, [conversationId])).map((row) =>
          toMessage(row, conversationId),
        );
      }
      const rows = await query<MessageRow>(sql.listMessagePage, [
        conversationId,
        page.before ?? null,
        page.limit ?? null,
      ]);
      return rows.reverse().map((row) => toMessage(row, conversationId));
    },

    async getAction(conversationId, actionId) {
      const [row] = await query<ActionRow>(sql.getAction, [conversationId, actionId]);
      return row && toAction(row, conversationId);
    },

    async listActions(conversationId) {
      return (await query<ActionRow>(sql.listActions, [conversationId])).map((row) => toAction(row, conversationId));
    },

    async listPendingActions(filter: PendingFilter) {
      const values: unknown[] = [];
      const param = (value: unknown, type: string) => (values.push(value), `$${values.length}::${type}`);
      const where = ["a.status = 'pending'"];
      let owner: string | undefined;
      if (filter.ownerId === null) owner = 'c.owner_id IS NULL';
      else if (filter.ownerId !== undefined) owner = `c.owner_id = ${param(filter.ownerId, 'text')}`;
      if (owner && filter.approver !== undefined) {
        owner = `(${owner} OR EXISTS (SELECT 1 FROM json_array_elements_text(CASE WHEN json_typeof(a.request->'approvers') = 'array' THEN a.request->'approvers' END) AS v(id) WHERE v.id = ANY(${param(entriesNaming({ userId: filter.approver, groups: filter.groups }), 'text[]')})))`;
      }
      if (owner) where.push(owner);
      if (filter.after) {
        where.push(
          `(a.created_at, a.id) > (${param(ms(filter.after.createdAt), 'bigint')}, ${param(filter.after.id, 'text')})`,
        );
      }
      const columns = actionColumns
        .split(', ')
        .map((column) => `a.${column}`)
        .join(', ');
      const text =
        `SELECT ${columns}, c.id AS conversation_id FROM ${t('actions')} a JOIN ${t('conversations')} c ON c.key = a.conversation_key ` +
        `WHERE ${where.join(' AND ')} ORDER BY a.created_at, a.id LIMIT ${param(pageSize(filter.limit, 50), 'int')}`;
      const rows = await query<ActionRow & { conversation_id: string }>(text, values);
      return rows.map((row) => toAction(row, row.conversation_id));
    },

    async listEvents(conversationId, options = {}) {
      const rows = await query<EventRow>(sql.listEvents, [
        conversationId,
        options.after ?? 0,
        pageSize(options.limit, 500),
      ]);
      return rows.map((row) => toEvent(row, conversationId));
    },

    async listRememberedTools(conversationId) {
      return (await query<RememberedRow>(sql.listRemembered, [conversationId])).map(toRemembered);
    },

    async forgetTool(conversationId, toolName) {
      const { pool } = await open();
      const result = await pool.query({
        name: named(sql.forget),
        text: sql.forget,
        values: [conversationId, toolName],
      });
      return (result.rowCount ?? 0) > 0;
    },

    async listDue(now, limit) {
      const size = pageSize(limit, limit);
      const rows = await query<ConversationRow>(sql.listDue, [ms(now), size]);
      const seen = new Set<string>();
      const due = [];
      for (const row of rows) {
        if (seen.has(row.id)) continue;
        seen.add(row.id);
        due.push(toConversation(row));
        if (due.length === size) break;
      }
      return due;
    },

    findAction: (actionId) => queue.findAction(actionId),
    countPending: (now) => queue.countPending(now),
    listDecisionTimes: (since, limit) => queue.listDecisionTimes(since, limit),
    claimDeliveries: (now, until, limit) => outbox.claim(now, until, limit),
    finishDelivery: (id, outcome) => outbox.finish(id, outcome),
    listDeliveries: (filter) => outbox.list(filter),
    secret: (name) => outbox.secret(name),

    listValues: (scope) =>
      query<StoredValue>(`SELECT key, value FROM ${t('adapter_values')} WHERE scope = $1 ORDER BY key`, [scope]),

    async putValues(values) {
      // One statement, so the values are written all or none.
      await writeValues(query, { put: values });
    },

    async deleteValues(scope, keys) {
      await writeValues(query, { drop: [{ scope, keys }] });
    },

    async appendAudit(append, values) {
      await upkeep.transaction(async (run) => {
        if (values) await writeValues(run, values);
        await upkeep.append(run, append);
      });
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

    async swapValue(scope, key, expected, next) {
      const table = t('adapter_values');
      // Each case is one statement, so it is atomic against every other process on the database.
      if (expected === null && next === null)
        return (await query(`SELECT 1 FROM ${table} WHERE scope = $1 AND key = $2`, [scope, key])).length === 0;
      if (expected === null)
        return (
          (
            await query(
              `INSERT INTO ${table} (scope, key, value) VALUES ($1, $2, $3) ON CONFLICT (scope, key) DO NOTHING RETURNING 1`,
              [scope, key, next],
            )
          ).length === 1
        );
      if (next === null)
        return (
          (
            await query(`DELETE FROM ${table} WHERE scope = $1 AND key = $2 AND value = $3 RETURNING 1`, [
              scope,
              key,
              expected,
            ])
          ).length === 1
        );
      return (
        (
          await query(`UPDATE ${table} SET value = $4 WHERE scope = $1 AND key = $2 AND value = $3 RETURNING 1`, [
            scope,
            key,
            expected,
            next,
          ])
        ).length === 1
      );
    },

    async listen(onEvents, onReconnect) {
      const { listenConnection } = await open();
      const stop = await listenForEvents(listenConnection, channel, onEvents, onReconnect);
      const unlisten = async () => {
        listeners.delete(unlisten);
        await stop();
      };
      listeners.add(unlisten);
      return unlisten;
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...listeners].map((stop) => stop()));
      if (opened && !options.pool) await (await opened).pool.end();
    },
  };
}
