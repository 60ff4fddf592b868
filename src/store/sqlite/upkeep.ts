import type Database from 'better-sqlite3';
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
import { EVENT_SPAN, MESSAGE_SPAN } from './migrations.js';

/*
 * The SQLite store's audit log, retention and erasure (docs/operating.md). `append` runs inside the commit's
 * transaction (the caller's), so an entry is written with its decision or not at all.
 */

interface AuditRow {
  seq: number;
  entry: string;
  hash: string;
  actor: string | null;
  on_behalf_of: string | null;
}

/** Everything a conversation leaves in the file, by its key and id. */
function dropConversationSql(): string[] {
  return [
    `DELETE FROM messages WHERE rowid BETWEEN @key * ${MESSAGE_SPAN} AND @key * ${MESSAGE_SPAN} + ${MESSAGE_SPAN - 1}`,
    `DELETE FROM events WHERE rowid BETWEEN @key * ${EVENT_SPAN} AND @key * ${EVENT_SPAN} + ${EVENT_SPAN - 1}`,
    'DELETE FROM actions WHERE conversation_key = @key',
    'DELETE FROM remembered_tools WHERE conversation_key = @key',
    'DELETE FROM deliveries WHERE conversation_id = @id',
    // Adapter values kept under the conversation's id (LangGraph checkpoints, run states, A2A push state).
    "DELETE FROM adapter_values WHERE scope LIKE '%:' || @id OR scope LIKE '%:' || @id || ':%'",
    'DELETE FROM conversations WHERE key = @key',
  ];
}

export function sqliteUpkeep(db: Database.Database) {
  let statements: ReturnType<typeof prepare> | undefined;
  const prepared = () => (statements ??= prepare(db));

  /** Chains and writes entries; call inside a write transaction. */
  function append(audit: AuditAppend | undefined): void {
    if (!audit || audit.entries.length === 0) return;
    const q = prepared();
    for (const person of audit.people) q.addPerson.run(person.key, person.userId);
    const head = (q.last.get() as AuditAnchor | undefined) ?? anchorOf(q);
    const chained = chainAfter(head, audit.entries);
    for (const { entry, hash } of chained) q.insertEntry.run(entry.seq, ms(entry.at), JSON.stringify(entry), hash);
  }

  function anchorOf(q: ReturnType<typeof prepare>): AuditAnchor {
    const row = q.anchor.get() as { anchor_seq: number; anchor_hash: string };
    return { seq: row.anchor_seq, hash: row.anchor_hash };
  }

  function drop(rows: Array<{ key: number; id: string }>): void {
    const q = prepared();
    for (const row of rows) for (const statement of q.drop) statement.run(row);
  }

  return {
    append,

    appendAlone(audit: AuditAppend): void {
      db.transaction(() => append(audit)).immediate();
    },

    list(page: AuditPage) {
      const rows = prepared().list.all({
        after: page.after ?? 0,
        since: page.since === undefined ? 0 : ms(page.since),
        limit: pageSize(page.limit, 500),
      }) as AuditRow[];
      return rows.map((row) => {
        const entry = JSON.parse(row.entry) as ChainedEntry;
        const names = new Map([
          [entry.actorKey, row.actor],
          [entry.onBehalfOfKey, row.on_behalf_of],
        ]);
        return withDisplay(entry, row.hash, (key) => names.get(key) ?? undefined);
      });
    },

    anchor(): AuditAnchor {
      return anchorOf(prepared());
    },

    prune(before: string): number {
      return db
        .transaction(() => {
          const q = prepared();
          // From the front, in seq order: an entry whose clock ran behind never leaves a hole in the chain.
          const front = q.front.all(PRUNE_BATCH) as Array<{ seq: number; hash: string; at: number }>;
          const last = lastToPrune(front, ms(before));
          if (!last) return 0;
          q.setAnchor.run(last.seq, last.hash);
          return q.pruneTo.run(last.seq).changes;
        })
        .immediate();
    },

    deleteFinished(before: string, limit: number): number {
      const gone = db
        .transaction(() => {
          const rows = prepared().finished.all(ms(before), limit) as Array<{ key: number; id: string }>;
          drop(rows);
          return rows.length;
        })
        .immediate();
      // auto_vacuum = INCREMENTAL (new files): hand the freed pages back, so the file shrinks.
      if (gone > 0) db.pragma('incremental_vacuum');
      return gone;
    },

    erase(erasure: Erasure): ErasureCounts {
      const counts = db
        .transaction((): ErasureCounts => {
          const q = prepared();
          const own = q.ownedBy.all(erasure.userId) as Array<{ key: number; id: string }>;
          let actions = 0;
          for (const row of own) actions += (q.countActions.get(row.key) as number) ?? 0;
          drop(own);
          const params = {
            id: erasure.userId,
            quoted: JSON.stringify(erasure.userId),
            pseudonym: erasure.pseudonym,
            quotedPseudonym: JSON.stringify(erasure.pseudonym),
          };
          let replaced = 0;
          for (const statement of q.replace) replaced += statement.run(params).changes;
          for (const scope of erasure.valueScopes) q.dropScope.run(scope);
          for (const prefix of erasure.valuePrefixes)
            q.dropNaming.run({ prefix, id: erasure.userId, quoted: params.quoted });
          q.dropPerson.run(erasure.auditKey);
          append(erasure.audit);
          return { conversations: own.length, actions, replaced };
        })
        .immediate();
      // Nothing of theirs may stay in the -wal either: copy it into the file and cut it to nothing.
      db.pragma('incremental_vacuum');
      db.pragma('wal_checkpoint(TRUNCATE)');
      return counts;
    },
  };
}

function prepare(db: Database.Database) {
  // A JSON text naming the person: `"<id>"` as a whole string (so "ada" does not match "adam").
  const swap = (table: string, column: string) =>
    db.prepare(
      `UPDATE ${table} SET ${column} = replace(${column}, @quoted, @quotedPseudonym) WHERE instr(${column}, @quoted) > 0`,
    );
  return {
    addPerson: db.prepare('INSERT INTO audit_people (key, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING'),
    // The head of the chain: its last entry (none once pruning took them all; the anchor is then the head).
    last: db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1'),
    anchor: db.prepare('SELECT anchor_seq, anchor_hash FROM audit_chain WHERE id = 1'),
    setAnchor: db.prepare('UPDATE audit_chain SET anchor_seq = ?, anchor_hash = ? WHERE id = 1'),
    insertEntry: db.prepare('INSERT INTO audit_log (seq, at, entry, hash) VALUES (?, ?, ?, ?)'),
    list: db.prepare(
      `SELECT l.seq, l.entry, l.hash, a.user_id AS actor, b.user_id AS on_behalf_of FROM audit_log l
       LEFT JOIN audit_people a ON a.key = json_extract(l.entry, '$.actorKey')
       LEFT JOIN audit_people b ON b.key = json_extract(l.entry, '$.onBehalfOfKey')
       WHERE l.seq > @after AND l.at >= @since ORDER BY l.seq LIMIT @limit`,
    ),
    front: db.prepare('SELECT seq, hash, at FROM audit_log ORDER BY seq LIMIT ?'),
    pruneTo: db.prepare('DELETE FROM audit_log WHERE seq <= ?'),
    finished: db.prepare(
      `SELECT key, id FROM conversations c WHERE status = 'idle' AND updated_at < ? AND queue IS NULL
         AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.conversation_key = c.key AND a.status = 'pending')
       ORDER BY updated_at LIMIT ?`,
    ),
    drop: dropConversationSql().map((sql) => db.prepare(sql)),
    ownedBy: db.prepare('SELECT key, id FROM conversations WHERE owner_id = ?'),
    countActions: db.prepare('SELECT count(*) FROM actions WHERE conversation_key = ?').pluck(),
    replace: [
      db.prepare('UPDATE actions SET resolved_by = @pseudonym WHERE resolved_by = @id'),
      db.prepare('UPDATE actions SET answered_for = @pseudonym WHERE answered_for = @id'),
      db.prepare('UPDATE remembered_tools SET remembered_by = @pseudonym WHERE remembered_by = @id'),
      swap('actions', 'request'),
      swap('actions', 'resolution'),
      swap('events', 'data'),
      swap('messages', 'metadata'),
      swap('messages', 'parts'),
      swap('conversations', 'metadata'),
      swap('conversations', 'queue'),
    ],
    dropScope: db.prepare('DELETE FROM adapter_values WHERE scope = ?'),
    dropNaming: db.prepare(
      `DELETE FROM adapter_values WHERE substr(scope, 1, length(@prefix)) = @prefix
         AND (key = @id OR instr(value, @quoted) > 0)`,
    ),
    dropPerson: db.prepare('DELETE FROM audit_people WHERE key = ?'),
  };
}
