import type { AnswerSurface } from '../../protocol/action-base.js';
import type { ActionRecord } from '../../types.js';
import type { DecisionTime, PendingCount } from '../store.js';
import { iso, ms } from '../times.js';
import { DAY_MS, notAPerson } from '../values.js';
import { actionColumns, toAction, type ActionRow } from './rows.js';

type Query = <Row>(text: string, values?: unknown[]) => Promise<Row[]>;

interface PendingRow {
  agent: string;
  kind: string;
  count: string;
  oldest: string;
  over1: string;
  over3: string;
  over7: string;
}

interface DecisionRow {
  agent: string;
  kind: string;
  channel: AnswerSurface | null;
  created_at: string;
  resolved_at: string;
}

const excluded = notAPerson.map((channel) => `'${channel}'`).join(', ');

/**
 * The reads across conversations of the inbox's batch answers (an action by its id), the Queue page and
 * `/metrics` (pending actions by agent and kind, how long decisions took).
 */
export function postgresQueue(query: Query, t: (table: string) => string) {
  const columns = actionColumns
    .split(', ')
    .map((column) => `a.${column}`)
    .join(', ');
  const sql = {
    // Through the index actions_by_id (migration 21).
    findAction: `SELECT ${columns}, c.id AS conversation_id FROM ${t('actions')} a
      JOIN ${t('conversations')} c ON c.key = a.conversation_key WHERE a.id = $1`,
    pending: `SELECT c.agent, a.request->>'kind' AS kind, count(*) AS count, min(a.created_at) AS oldest,
        count(*) FILTER (WHERE a.created_at < $1) AS over1, count(*) FILTER (WHERE a.created_at < $2) AS over3,
        count(*) FILTER (WHERE a.created_at < $3) AS over7
      FROM ${t('actions')} a JOIN ${t('conversations')} c ON c.key = a.conversation_key
      WHERE a.status = 'pending'
      GROUP BY c.agent, a.request->>'kind' ORDER BY c.agent, kind`,
    decisions: `SELECT c.agent, a.request->>'kind' AS kind, a.channel, a.created_at, a.resolved_at
      FROM ${t('actions')} a JOIN ${t('conversations')} c ON c.key = a.conversation_key
      WHERE a.status = 'resolved' AND a.resolved_at >= $1 AND a.channel NOT IN (${excluded})
      ORDER BY a.resolved_at DESC LIMIT $2`,
  };
  return {
    async findAction(actionId: string): Promise<ActionRecord | undefined> {
      const [row] = await query<ActionRow & { conversation_id: string }>(sql.findAction, [actionId]);
      return row && toAction(row, row.conversation_id);
    },
    async countPending(now: string): Promise<PendingCount[]> {
      const at = ms(now);
      const rows = await query<PendingRow>(sql.pending, [at - DAY_MS, at - 3 * DAY_MS, at - 7 * DAY_MS]);
      return rows.map((row) => ({
        agent: row.agent,
        kind: row.kind,
        count: Number(row.count),
        oldestCreatedAt: iso(Number(row.oldest)),
        over1Day: Number(row.over1),
        over3Days: Number(row.over3),
        over7Days: Number(row.over7),
      }));
    },
    async listDecisionTimes(since: string, limit: number): Promise<DecisionTime[]> {
      const rows = await query<DecisionRow>(sql.decisions, [ms(since), limit]);
      return rows.map((row) => ({
        agent: row.agent,
        kind: row.kind,
        channel: row.channel,
        createdAt: iso(Number(row.created_at)),
        resolvedAt: iso(Number(row.resolved_at)),
      }));
    },
  };
}
