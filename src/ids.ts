import { randomBytes } from 'node:crypto';

/** A short random id with a readable prefix, e.g. `c_3hJx9…` for a conversation. */
export function newId(prefix: 'c' | 'm' | 'a' | 'call' | 'lease'): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
