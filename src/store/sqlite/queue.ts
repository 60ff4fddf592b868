import type Database from 'better-sqlite3';
import type { AnswerSurface } from '../../protocol/action-base.js';
import type { ActionRecord } from '../../types.js';
import type { DecisionTime, PendingCount } from '../store.js';
import { iso, ms } from '../times.js';
import { DAY_MS, notAPerson } from '../values.js';
import { toAction, type ActionRow } from './rows.js';

interface PendingRow {
  agent: string;
  kind: string;
  count: number;
  oldest: number;
  over1: number;
  over3: number;
  over7: number;
}

interface DecisionRow {
  agent: string;
  kind: string;
  channel: AnswerSurface | null;
  created_at: number;
  resolved_at: number;
}

const excluded = notAPerson.map((channel) => `'${channel}'`).join(', ');

/**
 * The reads across conversations of the inbox's batch answers (an action by its id), the Queue page and
 * `/metrics` (pending actions by agent and kind, how long decisions took).
 */
export function sqliteQueue(db: Database.Database) {
  let prepared: ReturnType<typeof prepare> | undefined;
  const s = () => (prepared ??= prepare(db));
  return {
    findAction(actionId: string): ActionRecord | undefined {
      const row = s().findAction.get(actionId) as (ActionRow & { conversation_id: string }) | undefined;
      return row && toAction(row, row.conversation_id);
    },
    countPending(now: string): PendingCount[] {
      const at = ms(now);
      const rows = s().pending.all({ day1: at - DAY_MS, day3: at - 3 * DAY_MS, day7: at - 7 * DAY_MS }) as PendingRow[];
      return rows.map((row) => ({
        agent: row.agent,
        kind: row.kind,
        count: row.count,
        oldestCreatedAt: iso(row.oldest),
        over1Day: row.over1,
        over3Days: row.over3,
        over7Days: row.over7,
      }));
    },
    listDecisionTimes(since: string, limit: number): DecisionTime[] {
      const rows = s().decisions.all({ since: ms(since), limit }) as DecisionRow[];
      return rows.map((row) => ({
        agent: row.agent,
        kind: row.kind,
        channel: row.channel,
        createdAt: iso(row.created_at),
        resolvedAt: iso(row.resolved_at),
      }));
    },
  };
}

function prepare(db: Database.Database) {
  return {
    // Through the index actions_by_id (migration 21).
    findAction: db.prepare(
      'SELECT a.*, c.id AS conversation_id FROM actions a JOIN conversations c ON c.key = a.conversation_key WHERE a.id = ?',
    ),
    // status = 'pending' lets SQLite read the partial index actions_pending, which holds only open actions.
    pending: db.prepare(`
      SELECT c.agent AS agent, a.request ->> '$.kind' AS kind, count(*) AS count, min(a.created_at) AS oldest,
        sum(a.created_at < :day1) AS over1, sum(a.created_at < :day3) AS over3, sum(a.created_at < :day7) AS over7
      FROM actions a JOIN conversations c ON c.key = a.conversation_key
      WHERE a.status = 'pending'
      GROUP BY c.agent, kind ORDER BY c.agent, kind`),
    decisions: db.prepare(`
      SELECT c.agent AS agent, a.request ->> '$.kind' AS kind, a.channel AS channel, a.created_at AS created_at,
        a.resolved_at AS resolved_at
      FROM actions a JOIN conversations c ON c.key = a.conversation_key
      WHERE a.status = 'resolved' AND a.resolved_at >= :since AND a.channel NOT IN (${excluded})
      ORDER BY a.resolved_at DESC LIMIT :limit`),
  };
}
