import { HeedError } from '../errors.js';

// Stores keep times as epoch milliseconds; records carry ISO 8601 strings. PostgreSQL's `pg` hands
// BIGINT columns over as strings, hence the Number() on the way back.

// The latest conversions each way, remembered: a commit or a read converts the same few times over and over
// (every event of a commit carries its `at`; a row holds its created, updated and due times), and Date's
// parsing and formatting are a visible share of a W1 cycle. Emptied when full, so it never grows past KEPT.
const KEPT = 256;
const parsed = new Map<string, number>();
const formatted = new Map<number, string>();

export function ms(value: string): number {
  let time = parsed.get(value);
  if (time !== undefined) return time;
  time = Date.parse(value);
  if (Number.isNaN(time)) throw new HeedError('internal_error', `Not an ISO 8601 time: ${JSON.stringify(value)}.`);
  if (parsed.size >= KEPT) parsed.clear();
  parsed.set(value, time);
  return time;
}

export function msOrNull(value: string | null): number | null {
  return value === null ? null : ms(value);
}

export function iso(time: number | string): string {
  const value = Number(time);
  let text = formatted.get(value);
  if (text !== undefined) return text;
  text = new Date(value).toISOString();
  if (formatted.size >= KEPT) formatted.clear();
  formatted.set(value, text);
  return text;
}

export function isoOrNull(time: number | string | null): string | null {
  return time === null ? null : iso(time);
}
