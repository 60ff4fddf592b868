import { HeedError } from '../errors.js';

// Stores keep times as epoch milliseconds; records carry ISO 8601 strings. PostgreSQL's `pg` hands
// BIGINT columns over as strings, hence the Number() on the way back.

// One remembered conversion each way: a commit or a read converts the same few times over and over (every
// event of a commit carries its `at`), and Date's parsing and formatting are a visible share of a W1 cycle.
let lastIso = '';
let lastMs = 0;

export function ms(value: string): number {
  if (value === lastIso) return lastMs;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new HeedError('internal_error', `Not an ISO 8601 time: ${JSON.stringify(value)}.`);
  lastIso = value;
  lastMs = time;
  return time;
}

export function msOrNull(value: string | null): number | null {
  return value === null ? null : ms(value);
}

let lastFormatted = '';
let lastFormattedMs = NaN;

export function iso(time: number | string): string {
  const value = Number(time);
  if (value === lastFormattedMs) return lastFormatted;
  lastFormatted = new Date(value).toISOString();
  lastFormattedMs = value;
  return lastFormatted;
}

export function isoOrNull(time: number | string | null): string | null {
  return time === null ? null : iso(time);
}
