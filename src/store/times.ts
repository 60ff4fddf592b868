import { HeedError } from '../errors.js';

// Stores keep times as epoch milliseconds; records carry ISO 8601 strings. PostgreSQL's `pg` hands
// BIGINT columns over as strings, hence the Number() on the way back.

export function ms(value: string): number {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new HeedError('internal_error', `Not an ISO 8601 time: ${JSON.stringify(value)}.`);
  return time;
}

export function msOrNull(value: string | null): number | null {
  return value === null ? null : ms(value);
}

export function iso(time: number | string): string {
  return new Date(Number(time)).toISOString();
}

export function isoOrNull(time: number | string | null): string | null {
  return time === null ? null : iso(time);
}
