import { randomBytes } from 'node:crypto';

let pool = Buffer.alloc(0);
let offset = 0;
let lastMs = 0;
let sequence = 0;

/** Random characters (base64url, 6 bits each) after the time part, by prefix. */
const RANDOM_CHARS = {
  // A conversation id is all that protects an ownerless conversation, so it carries 126 random bits
  // (at least 122, as a v4 UUID does): guessing one is out of reach.
  c: 21,
  // The others grant nothing on their own (an action is reached through its conversation): 48 bits keep
  // them unique across processes, and short, since they are stored many times per pause.
  m: 8,
  a: 8,
  call: 8,
  lease: 8,
  // A notification's id (the webhook's `webhook-id`): unique across processes, grants nothing.
  msg: 12,
} as const;

/**
 * An id with a readable prefix, e.g. `c_mij3k0x2004Zq9_dR2vYk0aLm3xQe8sT1u` or `a_mij3k0x2004Zq9_d`.
 * Ids made by one process sort in the order they were made (time, then a counter), so "oldest first"
 * lists have a stable order; the random tail makes them unguessable and unique across processes.
 */
export function newId(prefix: keyof typeof RANDOM_CHARS): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else {
    sequence++;
  }
  const chars = RANDOM_CHARS[prefix];
  const bytes = Math.ceil((chars * 6) / 8);
  if (offset + bytes > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const tail = pool.toString('base64url', offset, offset + bytes).slice(0, chars);
  offset += bytes;
  return `${prefix}_${lastMs.toString(36).padStart(8, '0')}${sequence.toString(36).padStart(3, '0')}${tail}`;
}
