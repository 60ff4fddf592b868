import { HeedError } from '../errors.js';

/**
 * At most twice this many buckets are kept: past that, full ones (callers idle long enough) are dropped,
 * then the least recently used until this many are left. Pruning once per this many new callers keeps
 * its cost constant per request.
 */
const KEEP = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per key, in this process's memory: `perMinute` at once, refilled at `perMinute` a
 * minute. Several server processes each count on their own (a caller may get `perMinute` from each).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Takes one token for `key`; when none is left, the whole seconds until one is. */
  take(key: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.now();
    const bucket = this.refilled(key, now);
    if (bucket.tokens < 1)
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)) };
    bucket.tokens -= 1;
    // Re-inserted so the map stays in order of last use (the oldest are dropped first).
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > KEEP * 2) this.prune(now);
    return { ok: true };
  }

  /** How many keys are being counted (for tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }

  private refilled(key: string, now: number): Bucket {
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    return bucket;
  }

  private prune(now: number): void {
    // A full bucket counts for nothing: forgetting it changes no answer.
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.perMs >= this.perMinute) this.buckets.delete(key);
    }
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= KEEP) break;
      this.buckets.delete(key);
    }
  }
}

/** The 429 a caller gets past `limits.conversationsPerMinute`; `Retry-After` comes from `details.retryAfterSeconds`. */
export function rateLimited(perMinute: number, retryAfterSeconds: number): HeedError {
  return new HeedError(
    'rate_limited',
    `Too many new conversations: at most ${perMinute} a minute per caller (limits.conversationsPerMinute); try again in ${retryAfterSeconds} s.`,
    { details: { limit: 'conversationsPerMinute', perMinute, retryAfterSeconds } },
  );
}

/**
 * Who a limit counts against: the user, or for an anonymous caller the client address (an IPv6
 * address by its /64, which one client usually holds whole). Behind a proxy every anonymous caller
 * shares the proxy's address.
 */
export function clientKey(userId: string | null, address: string | undefined): string {
  if (userId !== null) return `user:${userId}`;
  if (!address) return 'address:unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return `address:${mapped[1]}`;
  if (!address.includes(':')) return `address:${address}`;
  return `address:${ipv6Prefix(address)}::/64`;
}

/** The first four groups of an IPv6 address, written out in full. */
function ipv6Prefix(address: string): string {
  const plain = address.split('%')[0].toLowerCase();
  const [head, tail] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return groups
    .slice(0, 4)
    .map((group) => group.padStart(4, '0'))
    .join(':');
}
