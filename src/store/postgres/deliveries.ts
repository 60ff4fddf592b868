import { randomBytes } from 'node:crypto';
import type { DeliveryFilter, DeliveryOutcome, DeliveryRecord, DeliveryStatus } from '../store.js';
import { iso, ms } from '../times.js';

interface DeliveryRow {
  id: string;
  conversation_id: string;
  action_id: string;
  event: string;
  target: DeliveryRecord['target'];
  status: string;
  attempts: number;
  created_at: string | number;
  due_at: string | number | null;
  last_error: string | null;
  finished_at: string | number | null;
  receipt: DeliveryRecord['receipt'];
}

const time = (value: string | number | null) => (value === null ? null : iso(Number(value)));

function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    actionId: row.action_id,
    event: row.event as DeliveryRecord['event'],
    target: row.target,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    createdAt: time(row.created_at)!,
    dueAt: time(row.due_at),
    lastError: row.last_error,
    finishedAt: time(row.finished_at),
    receipt: row.receipt ?? null,
  };
}

type Query = <Row>(text: string, values?: unknown[]) => Promise<Row[]>;

/** The outbox's queries for the PostgreSQL store (`t` names a table in the store's schema). */
export function postgresDeliveries(query: Query, t: (table: string) => string) {
  const sql = {
    // SKIP LOCKED: instances claiming at once each take different rows, none waits on another.
    claim: `UPDATE ${t('deliveries')} AS d SET attempts = d.attempts + 1, due_at = $2
      FROM (SELECT id FROM ${t('deliveries')} WHERE status = 'pending' AND due_at <= $1 ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED) AS due
      WHERE d.id = due.id RETURNING d.*`,
    retry: `UPDATE ${t('deliveries')} SET status = 'pending', due_at = $2, last_error = $3 WHERE id = $1`,
    finish: `UPDATE ${t('deliveries')} SET status = $2, due_at = NULL, finished_at = $3, last_error = coalesce($4, last_error), receipt = coalesce($5::json, receipt) WHERE id = $1`,
    list: `SELECT * FROM ${t('deliveries')} WHERE ($1::text IS NULL OR status = $1)
      AND ($3::text IS NULL OR (created_at, id) > ($2::bigint, $3::text)) AND ($5::text IS NULL OR action_id = $5) ORDER BY created_at, id LIMIT $4`,
    makeSecret: `INSERT INTO ${t('secrets')} (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
    secret: `SELECT value FROM ${t('secrets')} WHERE name = $1`,
  };
  return {
    async claim(now: string, until: string, limit: number): Promise<DeliveryRecord[]> {
      const rows = await query<DeliveryRow>(sql.claim, [ms(now), ms(until), Math.max(0, Math.floor(limit))]);
      return rows.map(toDelivery).sort((a, b) => (a.id < b.id ? -1 : 1));
    },
    async finish(id: string, outcome: DeliveryOutcome): Promise<void> {
      if (outcome.status === 'pending') await query(sql.retry, [id, ms(outcome.dueAt), outcome.error]);
      else
        await query(sql.finish, [
          id,
          outcome.status,
          ms(outcome.at),
          outcome.error ?? null,
          outcome.receipt ? JSON.stringify(outcome.receipt) : null,
        ]);
    },
    async list(filter: DeliveryFilter): Promise<DeliveryRecord[]> {
      const after = filter.after;
      const rows = await query<DeliveryRow>(sql.list, [
        filter.status ?? null,
        after ? ms(after.createdAt) : null,
        after?.id ?? null,
        Math.max(0, Math.floor(filter.limit ?? 50)),
        filter.actionId ?? null,
      ]);
      return rows.map(toDelivery);
    },
    async secret(name: string): Promise<string> {
      await query(sql.makeSecret, [name, randomBytes(32).toString('base64url')]);
      const [row] = await query<{ value: string }>(sql.secret, [name]);
      return row.value;
    },
  };
}
