import type { Lock, QueueEntry, StateAdapter } from 'chat';

/**
 * A state adapter whose claims on some keys always succeed and store nothing. Adapters claim a webhook's
 * update id before Heed has recorded its message (Telegram's `telegram:webhook-update:…`, Discord's
 * `dedupe:discord:…`); Heed deduplicates by the platform's message id itself, once the message is recorded
 * (docs/channels.md), so such a claim must never make a retry of a message not yet recorded look like a
 * duplicate. Every other call goes to `state` unchanged, whichever state it is (Heed's store or Redis).
 */
export class HarmlessClaims implements StateAdapter {
  constructor(
    private readonly state: StateAdapter,
    private readonly harmless: (key: string) => boolean,
  ) {}

  async setIfNotExists(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    return this.harmless(key) ? true : this.state.setIfNotExists(key, value, ttlMs);
  }

  connect(): Promise<void> {
    return this.state.connect();
  }
  disconnect(): Promise<void> {
    return this.state.disconnect();
  }
  get<T = unknown>(key: string): Promise<T | null> {
    return this.state.get<T>(key);
  }
  set<T = unknown>(key: string, value: T, ttlMs?: number): Promise<void> {
    return this.state.set(key, value, ttlMs);
  }
  delete(key: string): Promise<void> {
    return this.state.delete(key);
  }
  subscribe(threadId: string): Promise<void> {
    return this.state.subscribe(threadId);
  }
  unsubscribe(threadId: string): Promise<void> {
    return this.state.unsubscribe(threadId);
  }
  isSubscribed(threadId: string): Promise<boolean> {
    return this.state.isSubscribed(threadId);
  }
  acquireLock(threadId: string, ttlMs: number): Promise<Lock | null> {
    return this.state.acquireLock(threadId, ttlMs);
  }
  extendLock(lock: Lock, ttlMs: number): Promise<boolean> {
    return this.state.extendLock(lock, ttlMs);
  }
  releaseLock(lock: Lock): Promise<void> {
    return this.state.releaseLock(lock);
  }
  forceReleaseLock(threadId: string): Promise<void> {
    return this.state.forceReleaseLock(threadId);
  }
  appendToList(key: string, value: unknown, options?: { maxLength?: number; ttlMs?: number }): Promise<void> {
    return this.state.appendToList(key, value, options);
  }
  getList<T = unknown>(key: string): Promise<T[]> {
    return this.state.getList<T>(key);
  }
  enqueue(threadId: string, entry: QueueEntry, maxSize: number): Promise<number> {
    return this.state.enqueue(threadId, entry, maxSize);
  }
  dequeue(threadId: string): Promise<QueueEntry | null> {
    return this.state.dequeue(threadId);
  }
  queueDepth(threadId: string): Promise<number> {
    return this.state.queueDepth(threadId);
  }
}
