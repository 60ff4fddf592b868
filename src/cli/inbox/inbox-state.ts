import { HeedClientError, type ActionView } from '../../client/index.js';
import type { AnswerSurface, StoredResolution } from '../../types.js';
import { searchTextOf } from '../../kinds/index.js';

/**
 * One row of the terminal inbox. `settled` is set once it stops waiting: answered here (`byMe`), by
 * someone else, lapsed or cancelled. Settled rows stay on screen, marked, so nothing vanishes under the cursor.
 */
export interface InboxEntry {
  action: ActionView;
  settled?: Settled;
}

export interface Settled {
  byMe: boolean;
  status: ActionView['status'];
  resolution?: StoredResolution;
  resolvedBy?: string;
  channel?: AnswerSurface;
}

/** The most settled rows kept on screen; older ones drop off. */
export const MAX_SETTLED_ROWS = 20;

/**
 * Merges a fresh read of the inbox into the rows on screen: new actions join (oldest first), rows still
 * pending take the fresh copy, and rows that left the inbox without being answered here are returned
 * in `vanished` so their outcome can be looked up (someone else answered, or they lapsed).
 */
export function mergeInbox(
  entries: InboxEntry[],
  fresh: ActionView[],
  /** Rows being answered here right now: their leaving the inbox is this answer, not someone else's. */
  answering: ReadonlySet<string> = new Set(),
): { entries: InboxEntry[]; vanished: ActionView[] } {
  const freshById = new Map(fresh.map((action) => [action.id, action]));
  const known = new Set(entries.map((entry) => entry.action.id));
  const vanished: ActionView[] = [];
  const kept = entries.map((entry): InboxEntry => {
    const next = freshById.get(entry.action.id);
    if (next) return entry.settled ? entry : { action: next };
    if (!entry.settled && !answering.has(entry.action.id)) {
      vanished.push(entry.action);
      // Shown as gone at once; the lookup fills in who answered and how.
      return { action: entry.action, settled: { byMe: false, status: 'pending' } };
    }
    return entry;
  });
  const added = fresh.filter((action) => !known.has(action.id)).map((action): InboxEntry => ({ action }));
  const all = [...kept, ...added].sort(byAge);
  return { entries: dropOldSettled(all), vanished };
}

function byAge(a: InboxEntry, b: InboxEntry): number {
  return a.action.createdAt < b.action.createdAt
    ? -1
    : a.action.createdAt > b.action.createdAt
      ? 1
      : a.action.id < b.action.id
        ? -1
        : 1;
}

function dropOldSettled(entries: InboxEntry[]): InboxEntry[] {
  const settled = entries.filter((entry) => entry.settled);
  if (settled.length <= MAX_SETTLED_ROWS) return entries;
  const drop = new Set(settled.slice(0, settled.length - MAX_SETTLED_ROWS).map((entry) => entry.action.id));
  return entries.filter((entry) => !drop.has(entry.action.id));
}

/** Marks one row settled, from the action as the server now has it (or as answered here). */
export function markSettled(entries: InboxEntry[], action: ActionView, byMe: boolean): InboxEntry[] {
  return entries.map((entry) =>
    entry.action.id === action.id
      ? {
          action: { ...entry.action, ...action },
          settled: {
            byMe,
            status: action.status,
            ...(action.resolution ? { resolution: action.resolution } : {}),
            ...(action.resolvedBy ? { resolvedBy: action.resolvedBy } : {}),
            ...(action.channel ? { channel: action.channel } : {}),
          },
        }
      : entry,
  );
}

/** Moves the cursor by `delta` rows, staying inside the list. */
export function moveCursor(index: number, delta: number, length: number): number {
  if (length === 0) return 0;
  return Math.min(length - 1, Math.max(0, index + delta));
}

/** The rows that fit in `height` lines, keeping the cursor's row in view. */
export function visibleWindow(length: number, cursor: number, height: number): { start: number; end: number } {
  const rows = Math.max(1, height);
  if (length <= rows) return { start: 0, end: length };
  const start = Math.min(Math.max(0, cursor - Math.floor(rows / 2)), length - rows);
  return { start, end: start + rows };
}

/** How an answer that the server refused is shown, and whether the view stays answerable. */
export type AnswerProblem =
  /** 409: someone else was first. The view turns read-only and shows what they answered. */
  | { type: 'taken'; settled: Settled; message: string }
  /** 410: it lapsed. */
  | { type: 'lapsed'; message: string }
  /** 400 with per-field problems (`details.fields` of a question, `details.field` of edited arguments). */
  | { type: 'invalid'; message: string; fields: Record<string, string>; field?: string }
  /** Anything else (the network, 403, 500): shown, and the person may try again. */
  | { type: 'failed'; message: string };

export function answerProblem(thrown: unknown): AnswerProblem {
  if (HeedClientError.isInstance(thrown)) {
    const details = thrown.details ?? {};
    if (thrown.status === 409 && thrown.code === 'action_not_pending') {
      return {
        type: 'taken',
        message: thrown.message,
        settled: {
          byMe: false,
          status: (details.status as Settled['status']) ?? 'resolved',
          ...(details.resolution ? { resolution: details.resolution as StoredResolution } : {}),
          ...(typeof details.resolvedBy === 'string' ? { resolvedBy: details.resolvedBy } : {}),
          ...(typeof details.channel === 'string' ? { channel: details.channel as AnswerSurface } : {}),
        },
      };
    }
    if (thrown.status === 410) return { type: 'lapsed', message: thrown.message };
    if (thrown.status === 400) {
      const fields: Record<string, string> = Object.create(null);
      if (Array.isArray(details.fields)) {
        for (const entry of details.fields as Array<{ field?: unknown; message?: unknown }>) {
          if (typeof entry.field === 'string' && typeof entry.message === 'string')
            fields[entry.field] ??= entry.message;
        }
      }
      return {
        type: 'invalid',
        message: thrown.message,
        fields,
        ...(typeof details.field === 'string' ? { field: details.field } : {}),
      };
    }
    return { type: 'failed', message: thrown.message };
  }
  return { type: 'failed', message: connectionSentence(thrown) };
}

/** A network failure as one sentence (fetch reports "fetch failed" with the reason in `cause`). */
export function connectionSentence(thrown: unknown): string {
  const cause = thrown instanceof Error && thrown.cause instanceof Error ? thrown.cause : thrown;
  const code = (cause as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return 'Nothing answered there (connection refused).';
  if (code === 'ENOTFOUND') return 'That host name does not resolve.';
  if (code === 'ECONNRESET') return 'The connection was cut.';
  if (cause instanceof Error) return `The request failed: ${cause.message}.`;
  return `The request failed: ${String(cause)}.`;
}

/**
 * Whether a row matches what was typed after `/`: every word, in any case, somewhere in its kind, agent,
 * tool, what it asks, its arguments or its questions' options.
 */
export function matchesFilter(entry: InboxEntry, agent: string, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const { action } = entry;
  const fields: unknown[] = [
    action.kind,
    agent,
    action.toolName,
    'title' in action ? action.title : undefined,
    'summary' in action ? action.summary : undefined,
    ...searchTextOf(action),
  ];
  const text = fields
    .filter((field) => typeof field === 'string')
    .join(' ')
    .toLowerCase();
  return words.every((word) => text.includes(word));
}
