import type { StateAdapter } from 'chat';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HarmlessClaims } from './harmless-claims.js';

/** What a state's test file hands the contract: a connected, empty state and a clock the test moves. */
export interface StateUnderTest {
  state: StateAdapter;
  /** Another adapter, connected, over the same data (another instance of Heed). */
  another(): Promise<StateAdapter>;
  /** The clock the state's lapses are read against, in ms since the epoch. */
  now(): number;
  /** Moves that clock on by `ms`. */
  advance(ms: number): Promise<void>;
  /**
   * Whether a queue entry past its own `expiresAt` is left out of `queueDepth` and `dequeue`. Heed's store
   * leaves it out; Chat SDK's Redis adapter keeps it (Chat SDK skips it when dequeued). Heed runs messages
   * concurrently and never queues, so either serves it.
   */
  dropsLapsedQueueEntries: boolean;
  close(): Promise<void>;
}

/**
 * Chat SDK's `StateAdapter` as Heed relies on it (docs/channels.md), one suite for every state: Heed's own
 * over each store, and Chat SDK's Redis adapter. Lapses are long enough that the real time a Redis server
 * counts between two steps does not matter.
 */
export function stateContract(name: string, open: () => Promise<StateUnderTest>): void {
  describe(`Chat SDK state: ${name}`, () => {
    let under: StateUnderTest;
    let state: StateAdapter;
    beforeEach(async () => {
      under = await open();
      state = under.state;
    });
    afterEach(async () => {
      await under.close();
    });

    it('caches values, with a lapse; a claim is won once until its entry lapses', async () => {
      expect(await state.get('k')).toBeNull();
      await state.set('k', { a: 1 }, 10_000);
      expect(await state.get('k')).toEqual({ a: 1 });
      await under.advance(10_000);
      expect(await state.get('k')).toBeNull();
      await state.set('forever', 'x');
      await under.advance(10 ** 9);
      expect(await state.get('forever')).toBe('x');
      await state.delete('forever');
      expect(await state.get('forever')).toBeNull();

      const claims = await Promise.all(
        Array.from({ length: 6 }, () => state.setIfNotExists('dedupe:m1', true, 10_000)),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await state.setIfNotExists('dedupe:m1', true, 10_000)).toBe(false);
      await under.advance(10_000);
      expect(await state.setIfNotExists('dedupe:m1', true, 10_000)).toBe(true);
    });

    it('claims the configuration calls harmless always succeed and store nothing', async () => {
      const harmless = new HarmlessClaims(state, (key) => key.includes(':webhook-update:'));
      expect(await harmless.setIfNotExists('telegram:webhook-update:x:1', true, 10_000)).toBe(true);
      expect(await harmless.setIfNotExists('telegram:webhook-update:x:1', true, 10_000)).toBe(true);
      expect(await harmless.get('telegram:webhook-update:x:1')).toBeNull();
      expect(await harmless.setIfNotExists('other', true)).toBe(true);
      expect(await harmless.setIfNotExists('other', true)).toBe(false);
    });

    it('subscribes threads (seen by another adapter over the same data)', async () => {
      expect(await state.isSubscribed('telegram:1')).toBe(false);
      await state.subscribe('telegram:1');
      const other = await under.another();
      expect(await other.isSubscribed('telegram:1')).toBe(true);
      await other.disconnect();
      await state.unsubscribe('telegram:1');
      expect(await state.isSubscribed('telegram:1')).toBe(false);
    });

    it('locks a thread for one holder: extend and release need its token; a lapsed lock is free; force releases any', async () => {
      const before = under.now();
      const lock = await state.acquireLock('t1', 10_000);
      expect(lock?.threadId).toBe('t1');
      expect(lock!.expiresAt).toBeGreaterThanOrEqual(before + 10_000);
      expect(lock!.expiresAt).toBeLessThanOrEqual(under.now() + 10_000);
      const contenders = await Promise.all([state.acquireLock('t1', 10_000), state.acquireLock('t1', 10_000)]);
      expect(contenders).toEqual([null, null]);
      expect(await state.extendLock({ ...lock!, token: 'other' }, 50_000)).toBe(false);
      await under.advance(9_000);
      expect(await state.extendLock(lock!, 10_000)).toBe(true);
      await under.advance(9_000);
      expect(await state.acquireLock('t1', 10_000)).toBeNull();
      await state.releaseLock({ ...lock!, token: 'other' });
      expect(await state.acquireLock('t1', 10_000)).toBeNull();
      await state.releaseLock(lock!);
      const second = await state.acquireLock('t1', 10_000);
      expect(second).not.toBeNull();
      await under.advance(10_000);
      expect(await state.extendLock(second!, 10_000)).toBe(false);
      const third = await state.acquireLock('t1', 10_000);
      expect(third).not.toBeNull();
      await state.forceReleaseLock('t1');
      expect(await state.acquireLock('t1', 10_000)).not.toBeNull();
    });

    it('appends to lists, keeping the newest maxLength, and queues in order with a depth', async () => {
      expect(await state.getList('h')).toEqual([]);
      await Promise.all([1, 2, 3].map((n) => state.appendToList('h', n, { maxLength: 10 })));
      expect((await state.getList<number>('h')).sort()).toEqual([1, 2, 3]);
      await state.appendToList('h', 4, { maxLength: 2, ttlMs: 10_000 });
      expect((await state.getList<number>('h')).length).toBe(2);
      expect((await state.getList<number>('h')).at(-1)).toBe(4);
      await under.advance(10_000);
      expect(await state.getList('h')).toEqual([]);

      const now = under.now();
      const entry = (id: string, ttl = 100_000) =>
        ({ message: { id } as never, enqueuedAt: now, expiresAt: now + ttl }) as const;
      expect(await state.enqueue('q', entry('a'), 2)).toBe(1);
      expect(await state.enqueue('q', entry('b', 10), 2)).toBe(2);
      expect(await state.enqueue('q', entry('c'), 2)).toBe(2);
      expect(await state.queueDepth('q')).toBe(2);
      if (under.dropsLapsedQueueEntries) {
        await under.advance(10);
        expect(await state.queueDepth('q')).toBe(1);
      } else expect((await state.dequeue('q'))?.message).toEqual({ id: 'b' });
      expect((await state.dequeue('q'))?.message).toEqual({ id: 'c' });
      expect(await state.dequeue('q')).toBeNull();
    });
  });
}
