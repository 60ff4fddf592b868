import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshDatabase, pgServer, type TestDatabase } from '../../../test/pg.js';
import { memoryStore } from '../../store/memory/memory-store.js';
import { postgresStore } from '../../store/postgres/postgres-store.js';
import { sqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import { HeedState } from './heed-state.js';

/** Chat SDK's state over each of Heed's stores: one suite, every store, with a clock the test moves. */
let database: TestDatabase | undefined;
let schemas = 0;
beforeAll(async () => {
  if (pgServer) database = await freshDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const stores: Array<[string, () => { store: Store; cleanup: () => void }]> = [
  ['memory', () => ({ store: memoryStore(), cleanup: () => {} })],
  [
    'sqlite',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'heed-state-'));
      return { store: sqliteStore({ path: join(dir, 'heed.db') }), cleanup: () => rmSync(dir, { recursive: true }) };
    },
  ],
];
if (pgServer)
  stores.push([
    'postgres',
    () => ({
      store: postgresStore({ connectionString: database!.url, schema: `chat_state_${++schemas}_${process.pid}` }),
      cleanup: () => {},
    }),
  ]);

describe.each(stores)('Chat SDK state over the %s store', (_name, open) => {
  let store: Store;
  let cleanup: () => void;
  let now: number;
  let state: HeedState;
  beforeEach(async () => {
    ({ store, cleanup } = open());
    await store.migrate();
    now = 1_000_000;
    state = new HeedState(store, { now: () => now });
    await state.connect();
  });
  afterEach(async () => {
    await state.disconnect();
    await store.close();
    cleanup();
  });

  it('caches values, with a lapse; a claim is won once until its entry lapses', async () => {
    expect(await state.get('k')).toBeNull();
    await state.set('k', { a: 1 }, 1000);
    expect(await state.get('k')).toEqual({ a: 1 });
    now += 1000;
    expect(await state.get('k')).toBeNull();
    await state.set('forever', 'x');
    now += 10 ** 9;
    expect(await state.get('forever')).toBe('x');
    await state.delete('forever');
    expect(await state.get('forever')).toBeNull();

    const claims = await Promise.all(Array.from({ length: 6 }, () => state.setIfNotExists('dedupe:m1', true, 500)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await state.setIfNotExists('dedupe:m1', true, 500)).toBe(false);
    now += 500;
    expect(await state.setIfNotExists('dedupe:m1', true, 500)).toBe(true);
  });

  it('claims the configuration calls harmless always succeed and store nothing', async () => {
    const harmless = new HeedState(store, { now: () => now, harmlessClaim: (key) => key.includes(':webhook-update:') });
    expect(await harmless.setIfNotExists('telegram:webhook-update:x:1', true, 1000)).toBe(true);
    expect(await harmless.setIfNotExists('telegram:webhook-update:x:1', true, 1000)).toBe(true);
    expect(await harmless.get('telegram:webhook-update:x:1')).toBeNull();
    expect(await harmless.setIfNotExists('other', true)).toBe(true);
    expect(await harmless.setIfNotExists('other', true)).toBe(false);
  });

  it('subscribes threads (kept across a new adapter over the same store)', async () => {
    expect(await state.isSubscribed('telegram:1')).toBe(false);
    await state.subscribe('telegram:1');
    expect(await new HeedState(store).isSubscribed('telegram:1')).toBe(true);
    await state.unsubscribe('telegram:1');
    expect(await state.isSubscribed('telegram:1')).toBe(false);
  });

  it('locks a thread for one holder: extend and release need its token; a lapsed lock is free; force releases any', async () => {
    const lock = await state.acquireLock('t1', 1000);
    expect(lock).toMatchObject({ threadId: 't1', expiresAt: now + 1000 });
    const contenders = await Promise.all([state.acquireLock('t1', 1000), state.acquireLock('t1', 1000)]);
    expect(contenders).toEqual([null, null]);
    expect(await state.extendLock({ ...lock!, token: 'other' }, 5000)).toBe(false);
    now += 900;
    expect(await state.extendLock(lock!, 1000)).toBe(true);
    now += 900;
    expect(await state.acquireLock('t1', 1000)).toBeNull();
    await state.releaseLock({ ...lock!, token: 'other' });
    expect(await state.acquireLock('t1', 1000)).toBeNull();
    await state.releaseLock(lock!);
    const second = await state.acquireLock('t1', 1000);
    expect(second).not.toBeNull();
    now += 1000;
    expect(await state.extendLock(second!, 1000)).toBe(false);
    const third = await state.acquireLock('t1', 1000);
    expect(third).not.toBeNull();
    await state.forceReleaseLock('t1');
    expect(await state.acquireLock('t1', 1000)).not.toBeNull();
  });

  it('appends to lists, keeping the newest maxLength, and queues in order with a depth', async () => {
    expect(await state.getList('h')).toEqual([]);
    await Promise.all([1, 2, 3].map((n) => state.appendToList('h', n, { maxLength: 10 })));
    expect((await state.getList<number>('h')).sort()).toEqual([1, 2, 3]);
    await state.appendToList('h', 4, { maxLength: 2, ttlMs: 100 });
    expect((await state.getList<number>('h')).length).toBe(2);
    expect((await state.getList<number>('h')).at(-1)).toBe(4);
    now += 100;
    expect(await state.getList('h')).toEqual([]);

    const entry = (id: string, ttl = 1000) =>
      ({ message: { id } as never, enqueuedAt: now, expiresAt: now + ttl }) as const;
    expect(await state.enqueue('q', entry('a'), 2)).toBe(1);
    expect(await state.enqueue('q', entry('b', 10), 2)).toBe(2);
    expect(await state.enqueue('q', entry('c'), 2)).toBe(2);
    expect(await state.queueDepth('q')).toBe(2);
    now += 10;
    expect(await state.queueDepth('q')).toBe(1);
    expect((await state.dequeue('q'))?.message).toEqual({ id: 'c' });
    expect(await state.dequeue('q')).toBeNull();
  });
});
