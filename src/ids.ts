import { randomBytes } from 'node:crypto';

let pool = Buffer.alloc(0);
let offset = 0;
let lastMs = 0;
let sequence = 0;

/**
 * A short id with a readable prefix, e.g. `c_mij3k0x2004Zq9_d`. Ids made by one process sort in the
 * order they were made (time, then a counter), so "oldest first" lists have a stable order; the
 * random tail keeps them unguessable enough and unique across processes.
 */
export function newId(prefix: 'c' | 'm' | 'a' | 'call' | 'lease'): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else {
    sequence++;
  }
  if (offset + 6 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const tail = pool.toString('base64url', offset, offset + 6);
  offset += 6;
  return `${prefix}_${lastMs.toString(36).padStart(8, '0')}${sequence.toString(36).padStart(3, '0')}${tail}`;
}
