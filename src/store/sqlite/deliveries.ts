import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { DeliveryFilter, DeliveryOutcome, DeliveryRecord, DeliveryStatus, NewDelivery } from '../store.js';
import { iso, ms } from '../times.js';

interface DeliveryRow {
  id: string;
  conversation_id: string;
  action_id: string;
  event: string;
  target: string;
  status: string;
  attempts: number;
  created_at: number;
  due_at: number | null;
  last_error: string | null;
  finished_at: number | null;
  receipt: string | null;
}

function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    actionId: row.action_id,
    event: row.event as DeliveryRecord['event'],
    target: JSON.parse(row.target),
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    createdAt: iso(row.created_at),
    dueAt: row.due_at === null ? null : iso(row.due_at),
    lastError: row.last_error,
    finishedAt: row.finished_at === null ? null : iso(row.finished_at),
    receipt: row.receipt === null ? null : JSON.parse(row.receipt),
  };
}

/** The outbox's statements for the SQLite store, prepared on first use (after migrate). */
export function sqliteDeliveries(db: Database.Database) {
  let prepared: ReturnType<typeof prepare> | undefined;
  const s = () => (prepared ??= prepare(db));
  // IMMEDIATE: the write lock first, so two processes on one file never claim the same row.
  const claim = db.transaction((now: number, until: number, limit: number) => {
    const rows = s().due.all(now, limit) as DeliveryRow[];
    for (const row of rows) s().claim.run(until, row.id);
    return rows.map((row) => toDelivery({ ...row, attempts: row.attempts + 1, due_at: until }));
  });
  return {
    /** Called inside the commit's transaction. */
    insert(conversationId: string, d: NewDelivery): void {
      const at = ms(d.createdAt);
      s().insert.run(d.id, conversationId, d.actionId, d.event, JSON.stringify(d.target), at, at);
    },
    claim(now: string, until: string, limit: number): DeliveryRecord[] {
      return claim.immediate(ms(now), ms(until), Math.max(0, Math.floor(limit)));
    },
    finish(id: string, outcome: DeliveryOutcome): void {
      if (outcome.status === 'pending') s().retry.run(ms(outcome.dueAt), outcome.error, id);
      else
        s().finish.run(
          outcome.status,
          ms(outcome.at),
          outcome.error ?? null,
          outcome.receipt ? JSON.stringify(outcome.receipt) : null,
          id,
        );
    },
    list(filter: DeliveryFilter): DeliveryRecord[] {
      const params = {
        status: filter.status ?? null,
        actionId: filter.actionId ?? null,
        afterCreatedAt: filter.after ? ms(filter.after.createdAt) : null,
        afterId: filter.after?.id ?? null,
        limit: Math.max(0, Math.floor(filter.limit ?? 50)),
      };
      return (s().list.all(params) as DeliveryRow[]).map(toDelivery);
    },
    secret(name: string): string {
      s().makeSecret.run(name, randomBytes(32).toString('base64url'));
      return s().secret.get(name) as string;
    },
  };
}

function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT INTO deliveries (id, conversation_id, action_id, event, target, status, attempts, created_at, due_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
    ),
    due: db.prepare("SELECT * FROM deliveries WHERE status = 'pending' AND due_at <= ? ORDER BY due_at, id LIMIT ?"),
    claim: db.prepare('UPDATE deliveries SET attempts = attempts + 1, due_at = ? WHERE id = ?'),
    retry: db.prepare("UPDATE deliveries SET status = 'pending', due_at = ?, last_error = ? WHERE id = ?"),
    finish: db.prepare(
      'UPDATE deliveries SET status = ?, due_at = NULL, finished_at = ?, last_error = coalesce(?, last_error), receipt = coalesce(?, receipt) WHERE id = ?',
    ),
    list: db.prepare(
      `SELECT * FROM deliveries WHERE (@status IS NULL OR status = @status) AND (@actionId IS NULL OR action_id = @actionId)
         AND (@afterId IS NULL OR (created_at, id) > (@afterCreatedAt, @afterId))
       ORDER BY created_at, id LIMIT @limit`,
    ),
    makeSecret: db.prepare('INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING'),
    secret: db.prepare('SELECT value FROM secrets WHERE name = ?').pluck(),
  };
}
