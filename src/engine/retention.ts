import type { RetentionConfig } from '../config.js';
import type { Store } from '../store/store.js';

/** At most this many conversations are deleted a sweep (one transaction): a long backlog goes a batch a run. */
export const RETENTION_BATCH = 500;

const DAY_MS = 86_400_000;

/** What one sweep's retention removed. */
export interface RetentionReport {
  conversations: number;
  auditEntries: number;
}

/**
 * Retention (docs/operating.md#retention), run by the sweep at `now`: one batch of finished conversations
 * older than `finishedDays`, and audit entries older than `auditDays` when set. Nothing without `retention`.
 */
export async function applyRetention(
  store: Pick<Store, 'deleteFinished' | 'pruneAudit'>,
  retention: RetentionConfig | undefined,
  now: string,
): Promise<RetentionReport> {
  if (!retention) return { conversations: 0, auditEntries: 0 };
  const at = Date.parse(now);
  const before = (days: number) => new Date(at - days * DAY_MS).toISOString();
  const conversations = await store.deleteFinished(before(retention.finishedDays), RETENTION_BATCH);
  const auditEntries = retention.auditDays === undefined ? 0 : await store.pruneAudit(before(retention.auditDays));
  return { conversations, auditEntries };
}
