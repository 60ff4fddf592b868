import { randomUUID } from 'node:crypto';
import type { Lock, QueueEntry, StateAdapter } from 'chat';
import type { Store } from '../../store/store.js';

/** One stored entry: the value and when it lapses (ms since the epoch; null: never). */
interface Entry {
  v: unknown;
  e: number | null;
}

export interface HeedStateOptions {
  /** The clock, in ms since the epoch (tests pass their own: nothing here waits). */
  now?: () => number;
}

/**
 * Chat SDK's state (subscriptions, locks, cache, lists, queues) kept in Heed's own store, so SQLite alone
 * or many instances on one PostgreSQL need nothing else to run. Every write that must not race is a
 * compare-and-set of one value (`Store.swapValue`), retried on a lost race; a lapsed entry reads as absent.
 */
export class HeedState implements StateAdapter {
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<Store, 'listValues' | 'putValues' | 'deleteValues' | 'swapValue'>,
    options: HeedStateOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {}

  // One scope per key, so reading one entry reads one row.
  private scope(kind: string, key: string): string {
    return `chat:${kind}:${key}`;
  }

  /** The stored text and its entry, or nulls when there is none (a lapsed one is returned as `raw` to replace it). */
  private async read(scope: string): Promise<{ raw: string | null; entry: Entry | null }> {
    const [row] = await this.store.listValues(scope);
    if (!row) return { raw: null, entry: null };
    const entry = JSON.parse(row.value) as Entry;
    return { raw: row.value, entry: entry.e !== null && entry.e <= this.now() ? null : entry };
  }

  private encode(value: unknown, ttlMs: number | undefined): string {
    return JSON.stringify({ v: value ?? null, e: ttlMs ? this.now() + ttlMs : null } satisfies Entry);
  }

  /** Applies `change` to the entry until no other writer came between the read and the write. */
  private async update<T>(
    scope: string,
    change: (entry: Entry | null) => { next: string | null; result: T } | { keep: T },
  ): Promise<T> {
    for (;;) {
      const { raw, entry } = await this.read(scope);
      const decided = change(entry);
      if ('keep' in decided) return decided.keep;
      if (await this.store.swapValue(scope, '', raw, decided.next)) return decided.result;
    }
  }

  async get<T = unknown>(key: string): Promise<T | null> {
    return ((await this.read(this.scope('kv', key))).entry?.v ?? null) as T | null;
  }

  async set<T = unknown>(key: string, value: T, ttlMs?: number): Promise<void> {
    await this.store.putValues([{ scope: this.scope('kv', key), key: '', value: this.encode(value, ttlMs) }]);
  }

  async setIfNotExists(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    return this.update<boolean>(this.scope('kv', key), (entry) =>
      entry ? { keep: false } : { next: this.encode(value, ttlMs), result: true },
    );
  }

  async delete(key: string): Promise<void> {
    await this.store.deleteValues(this.scope('kv', key));
  }

  async subscribe(threadId: string): Promise<void> {
    await this.store.putValues([{ scope: this.scope('sub', threadId), key: '', value: this.encode(true, undefined) }]);
  }

  async unsubscribe(threadId: string): Promise<void> {
    await this.store.deleteValues(this.scope('sub', threadId));
  }

  async isSubscribed(threadId: string): Promise<boolean> {
    return (await this.read(this.scope('sub', threadId))).entry !== null;
  }

  async acquireLock(threadId: string, ttlMs: number): Promise<Lock | null> {
    const lock: Lock = { threadId, token: randomUUID(), expiresAt: this.now() + ttlMs };
    return this.update<Lock | null>(this.scope('lock', threadId), (entry) =>
      entry ? { keep: null } : { next: JSON.stringify({ v: lock.token, e: lock.expiresAt }), result: lock },
    );
  }

  async extendLock(lock: Lock, ttlMs: number): Promise<boolean> {
    const expiresAt = this.now() + ttlMs;
    const extended = await this.update<boolean>(this.scope('lock', lock.threadId), (entry) =>
      entry?.v === lock.token
        ? { next: JSON.stringify({ v: lock.token, e: expiresAt }), result: true }
        : { keep: false },
    );
    if (extended) lock.expiresAt = expiresAt;
    return extended;
  }

  async releaseLock(lock: Lock): Promise<void> {
    await this.update(this.scope('lock', lock.threadId), (entry) =>
      entry?.v === lock.token ? { next: null, result: undefined } : { keep: undefined },
    );
  }

  async forceReleaseLock(threadId: string): Promise<void> {
    await this.store.deleteValues(this.scope('lock', threadId));
  }

  async appendToList(key: string, value: unknown, options: { maxLength?: number; ttlMs?: number } = {}): Promise<void> {
    await this.update(this.scope('list', key), (entry) => {
      const list = [...((entry?.v as unknown[] | undefined) ?? []), value];
      const kept = options.maxLength ? list.slice(-options.maxLength) : list;
      return { next: this.encode(kept, options.ttlMs), result: undefined };
    });
  }

  async getList<T = unknown>(key: string): Promise<T[]> {
    return ((await this.read(this.scope('list', key))).entry?.v as T[] | undefined) ?? [];
  }

  async enqueue(threadId: string, entry: QueueEntry, maxSize: number): Promise<number> {
    return this.update(this.scope('queue', threadId), (stored) => {
      // The newest `maxSize` are kept, as Chat SDK's own state adapters do.
      const queue = [...this.live(stored), entry].slice(-Math.max(1, maxSize));
      return { next: this.encode(queue, undefined), result: queue.length };
    });
  }

  async dequeue(threadId: string): Promise<QueueEntry | null> {
    return this.update<QueueEntry | null>(this.scope('queue', threadId), (stored) => {
      const [first, ...rest] = this.live(stored);
      if (!first) return { keep: null };
      return { next: rest.length ? this.encode(rest, undefined) : null, result: first };
    });
  }

  async queueDepth(threadId: string): Promise<number> {
    return this.live((await this.read(this.scope('queue', threadId))).entry).length;
  }

  /** A queue's entries that have not lapsed. */
  private live(entry: Entry | null): QueueEntry[] {
    const now = this.now();
    return ((entry?.v as QueueEntry[] | undefined) ?? []).filter((queued) => queued.expiresAt > now);
  }
}
