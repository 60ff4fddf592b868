import {
  chainAfter,
  lastToPrune,
  PRUNE_BATCH,
  withDisplay,
  type AuditAnchor,
  type AuditAppend,
  type ChainedEntry,
} from '../audit.js';
import type { AuditPage, Erasure, ErasureCounts } from '../store.js';
import { ms } from '../times.js';
import { pageSize } from '../values.js';
import { holdErrors, type PoolClientLike, type PoolLike, type QueryConfig } from './pool.js';

/*
 * The PostgreSQL store's audit log, retention and erasure (docs/operating.md). An append locks the chain's
 * head row, so entries of every instance take one order; a commit that carries entries runs its statement and
 * the append in one transaction. Freed space is left to autovacuum.
 */

type Run = <Row>(text: string, values?: unknown[]) => Promise<Row[]>;

export function postgresUpkeep(open: () => Promise<{ pool: PoolLike }>, t: (table: string) => string) {
  async function transaction<T>(work: (run: Run, client: PoolClientLike) => Promise<T>): Promise<T> {
    const { pool } = await open();
    const client = await pool.connect();
    const unhold = holdErrors(client);
    const run: Run = async <Row>(text: string, values: unknown[] = []) =>
      (await client.query<Row>({ text, values } satisfies QueryConfig)).rows;
    try {
      await run('BEGIN');
      const value = await work(run, client);
      await run('COMMIT');
      unhold();
      client.release();
      return value;
    } catch (error) {
      await run('ROLLBACK').catch(() => undefined);
      unhold();
      client.release(error as Error);
      throw error;
    }
  }

  /** Chains and writes entries inside the caller's transaction. */
  async function append(run: Run, audit: AuditAppend): Promise<void> {
    if (audit.entries.length === 0) return;
    if (audit.people.length > 0)
      await run(
        `INSERT INTO ${t('audit_people')} (key, user_id) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
        [audit.people.map((person) => person.key), audit.people.map((person) => person.userId)],
      );
    const [head] = await run<{ head_seq: string; head_hash: string }>(
      `SELECT head_seq, head_hash FROM ${t('audit_chain')} WHERE id = 1 FOR UPDATE`,
    );
    const chained = chainAfter({ seq: Number(head.head_seq), hash: head.head_hash }, audit.entries);
    await run(
      `INSERT INTO ${t('audit_log')} (seq, at, entry, hash) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[])`,
      [
        chained.map(({ entry }) => entry.seq),
        chained.map(({ entry }) => ms(entry.at)),
        chained.map(({ entry }) => JSON.stringify(entry)),
        chained.map(({ hash }) => hash),
      ],
    );
    const last = chained[chained.length - 1];
    await run(`UPDATE ${t('audit_chain')} SET head_seq = $1, head_hash = $2 WHERE id = 1`, [last.entry.seq, last.hash]);
  }

  /** Deletes conversations (by key and id) with everything they left. */
  async function drop(run: Run, rows: Array<{ key: string; id: string }>): Promise<void> {
    if (rows.length === 0) return;
    const keys = rows.map((row) => row.key);
    const ids = rows.map((row) => row.id);
    for (const table of ['messages', 'events', 'actions', 'remembered_tools'])
      await run(`DELETE FROM ${t(table)} WHERE conversation_key = ANY($1::bigint[])`, [keys]);
    await run(`DELETE FROM ${t('deliveries')} WHERE conversation_id = ANY($1::text[])`, [ids]);
    await run(
      `DELETE FROM ${t('adapter_values')} v USING unnest($1::text[]) AS c(id)
       WHERE v.scope LIKE '%:' || c.id OR v.scope LIKE '%:' || c.id || ':%'`,
      [ids],
    );
    await run(`DELETE FROM ${t('conversations')} WHERE key = ANY($1::bigint[])`, [keys]);
  }

  return {
    transaction,
    append,

    async appendAlone(audit: AuditAppend): Promise<void> {
      await transaction((run) => append(run, audit));
    },

    async list(page: AuditPage) {
      const { pool } = await open();
      const { rows } = await pool.query<{
        seq: string;
        entry: string;
        hash: string;
        actor: string | null;
        on_behalf_of: string | null;
      }>({
        text: `SELECT l.seq, l.entry, l.hash, a.user_id AS actor, b.user_id AS on_behalf_of FROM ${t('audit_log')} l
          LEFT JOIN ${t('audit_people')} a ON a.key = (l.entry::json ->> 'actorKey')
          LEFT JOIN ${t('audit_people')} b ON b.key = (l.entry::json ->> 'onBehalfOfKey')
          WHERE l.seq > $1 AND l.at >= $2 ORDER BY l.seq LIMIT $3`,
        values: [page.after ?? 0, page.since === undefined ? 0 : ms(page.since), pageSize(page.limit, 500)],
      });
      return rows.map((row) => {
        const entry = JSON.parse(row.entry) as ChainedEntry;
        const names = new Map([
          [entry.actorKey, row.actor],
          [entry.onBehalfOfKey, row.on_behalf_of],
        ]);
        return withDisplay(entry, row.hash, (key) => names.get(key) ?? undefined);
      });
    },

    async anchor(): Promise<AuditAnchor> {
      const { pool } = await open();
      const { rows } = await pool.query<{ anchor_seq: string; anchor_hash: string }>(
        `SELECT anchor_seq, anchor_hash FROM ${t('audit_chain')} WHERE id = 1`,
      );
      return { seq: Number(rows[0].anchor_seq), hash: rows[0].anchor_hash };
    },

    async prune(before: string): Promise<number> {
      return transaction(async (run) => {
        // The head's lock: no append chains onto entries while the front goes.
        await run(`SELECT 1 FROM ${t('audit_chain')} WHERE id = 1 FOR UPDATE`);
        // From the front, in seq order: an entry whose clock ran behind never leaves a hole in the chain.
        const front = await run<{ seq: string; hash: string; at: string }>(
          `SELECT seq, hash, at FROM ${t('audit_log')} ORDER BY seq LIMIT $1`,
          [PRUNE_BATCH],
        );
        const last = lastToPrune(
          front.map((row) => ({ ...row, at: Number(row.at) })),
          ms(before),
        );
        if (!last) return 0;
        await run(`UPDATE ${t('audit_chain')} SET anchor_seq = $1, anchor_hash = $2 WHERE id = 1`, [
          last.seq,
          last.hash,
        ]);
        return (await run(`DELETE FROM ${t('audit_log')} WHERE seq <= $1 RETURNING 1`, [last.seq])).length;
      });
    },

    async deleteFinished(before: string, limit: number): Promise<number> {
      return transaction(async (run) => {
        // SKIP LOCKED: a conversation another instance is writing right now is left for a later sweep.
        const rows = await run<{ key: string; id: string }>(
          `SELECT key, id FROM ${t('conversations')} c WHERE status = 'idle' AND updated_at < $1 AND queue IS NULL
             AND NOT EXISTS (SELECT 1 FROM ${t('actions')} a WHERE a.conversation_key = c.key AND a.status = 'pending')
           ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
          [ms(before), limit],
        );
        await drop(run, rows);
        return rows.length;
      });
    },

    async erase(erasure: Erasure): Promise<ErasureCounts> {
      return transaction(async (run) => {
        const own = await run<{ key: string; id: string }>(
          `SELECT key, id FROM ${t('conversations')} WHERE owner_id = $1 FOR UPDATE`,
          [erasure.userId],
        );
        const [{ count }] = await run<{ count: string }>(
          `SELECT count(*) AS count FROM ${t('actions')} WHERE conversation_key = ANY($1::bigint[])`,
          [own.map((row) => row.key)],
        );
        await drop(run, own);
        const quoted = JSON.stringify(erasure.userId);
        const quotedPseudonym = JSON.stringify(erasure.pseudonym);
        let replaced = 0;
        const plain = (table: string, column: string) =>
          run(`UPDATE ${t(table)} SET ${column} = $2 WHERE ${column} = $1 RETURNING 1`, [
            erasure.userId,
            erasure.pseudonym,
          ]);
        const json = (table: string, column: string) =>
          run(
            `UPDATE ${t(table)} SET ${column} = replace(${column}::text, $1, $2)::json
             WHERE strpos(${column}::text, $1) > 0 RETURNING 1`,
            [quoted, quotedPseudonym],
          );
        for (const done of [
          await plain('actions', 'resolved_by'),
          await plain('actions', 'answered_for'),
          await plain('remembered_tools', 'remembered_by'),
          await json('actions', 'request'),
          await json('actions', 'resolution'),
          await json('events', 'data'),
          await json('messages', 'metadata'),
          await json('messages', 'parts'),
          await json('conversations', 'metadata'),
          await json('conversations', 'queue'),
        ])
          replaced += done.length;
        for (const scope of erasure.valueScopes)
          await run(`DELETE FROM ${t('adapter_values')} WHERE scope = $1`, [scope]);
        for (const prefix of erasure.valuePrefixes)
          await run(
            `DELETE FROM ${t('adapter_values')} WHERE left(scope, length($1)) = $1 AND (key = $2 OR strpos(value, $3) > 0)`,
            [prefix, erasure.userId, quoted],
          );
        await run(`DELETE FROM ${t('audit_people')} WHERE key = $1`, [erasure.auditKey]);
        if (erasure.audit) await append(run, erasure.audit);
        return { conversations: own.length, actions: Number(count), replaced };
      });
    },
  };
}
