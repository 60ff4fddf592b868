import type { DecisionTime, PendingCount } from '../../store/store.js';
import { queueResponse, type QueueView, type QueueWaits } from '../../protocol/responses.js';
import { mustBeOperator, operatorRule } from '../operators.js';
import { defineRoute, type Route } from '../route.js';

/** The decisions the page reads: the last week's, at most this many (newest first). */
const DAYS = 7;
const MAX_DECISIONS = 5000;

export const queueRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/queue',
      scope: 'admin',
      operationId: 'queue',
      summary: 'How long people take: what waits, for how long, and the time to decision',
      description:
        'For operators only (`auth.admins` and `notify.operators`; everyone else gets 403 `forbidden`). Pending actions and their ages ' +
        `now, and the median and 90th percentile time to decision over the last ${DAYS} days, overall and per agent.`,
      tag: 'actions',
      responses: { 200: { description: 'The queue now.', schema: queueResponse } },
      errors: ['unauthorized', 'forbidden'],
    },
    async ({ c, host, caller }) => {
      mustBeOperator(caller, operatorRule(c, host), 'read the queue');
      const now = host.now();
      const since = new Date(Date.parse(now) - DAYS * 86_400_000).toISOString();
      const [pending, decisions] = await Promise.all([
        host.store.countPending(now),
        host.store.listDecisionTimes(since, MAX_DECISIONS),
      ]);
      const agents = [...new Set([...pending.map((row) => row.agent), ...decisions.map((row) => row.agent)])].sort();
      const view: QueueView = {
        days: DAYS,
        ...summarize(pending, decisions),
        agents: agents.map((agent) => ({
          agent,
          ...summarize(
            pending.filter((row) => row.agent === agent),
            decisions.filter((row) => row.agent === agent),
          ),
        })),
      };
      return Response.json(view);
    },
  ),
];

function summarize(pending: PendingCount[], decisions: DecisionTime[]): QueueWaits {
  const oldest = pending.map((row) => row.oldestCreatedAt).sort()[0] ?? null;
  const seconds = decisions
    .map((row) => (Date.parse(row.resolvedAt) - Date.parse(row.createdAt)) / 1000)
    .sort((a, b) => a - b);
  const sum = (field: 'count' | 'over1Day' | 'over3Days' | 'over7Days') =>
    pending.reduce((total, row) => total + row[field], 0);
  return {
    pending: sum('count'),
    oldestCreatedAt: oldest,
    over1Day: sum('over1Day'),
    over3Days: sum('over3Days'),
    over7Days: sum('over7Days'),
    decisions: seconds.length,
    medianSeconds: percentile(seconds, 0.5),
    p90Seconds: percentile(seconds, 0.9),
  };
}

/** The nearest-rank percentile of sorted values (null for none). */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? null;
}
