import { describe, expect, it } from 'vitest';
import { HeedError } from '../errors.js';
import { memoryStore } from './memory/memory-store.js';
import { guardStore, isStoreOutage } from './unavailable.js';

const coded = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('store outages', () => {
  it('tells an out-of-reach or full database from everything else', () => {
    const outages = [
      coded('SQLITE_FULL', 'database or disk is full'),
      coded('SQLITE_BUSY', 'database is locked'),
      coded('SQLITE_IOERR_WRITE', 'disk I/O error'),
      coded('ECONNRESET', 'read ECONNRESET'),
      coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      coded('57P01', 'terminating connection due to administrator command'),
      coded('57P03', 'the database system is starting up'),
      coded('08006', 'connection failure'),
      coded('53100', 'could not extend file: No space left on device'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Query read timeout'),
      new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], 'connect failed'),
      new Error('wrapped', { cause: coded('EPIPE') }),
      new HeedError('store_unavailable', 'out'),
    ];
    for (const error of outages) expect([error.message, isStoreOutage(error)]).toEqual([error.message, true]);

    const others = [
      coded('SQLITE_CONSTRAINT_PRIMARYKEY', 'UNIQUE constraint failed'),
      coded('SQLITE_CORRUPT', 'database disk image is malformed'),
      coded('23505', 'duplicate key value'),
      coded('42P01', 'relation does not exist'),
      new Error('The provider is down.'),
      new HeedError('invalid_request', 'no'),
      'ECONNRESET',
      undefined,
    ];
    for (const error of others) expect([String(error), isStoreOutage(error)]).toEqual([String(error), false]);
  });

  it('a guarded store throws store_unavailable (503, Retry-After) for an outage and passes anything else as it is', async () => {
    const inner = memoryStore();
    let failure: unknown;
    const store = guardStore({
      ...inner,
      getConversation: async (id) => {
        if (failure) throw failure;
        return inner.getConversation(id);
      },
    });
    expect(await store.getConversation('c_none')).toBeUndefined();

    failure = coded('SQLITE_FULL', 'database or disk is full');
    const outage = await store.getConversation('c_none').catch((thrown: unknown) => thrown);
    expect(HeedError.isInstance(outage)).toBe(true);
    expect(outage).toMatchObject({
      code: 'store_unavailable',
      status: 503,
      details: { retryAfterSeconds: 5 },
      cause: failure,
    });

    failure = coded('SQLITE_CONSTRAINT', 'constraint failed');
    await expect(store.getConversation('c_none')).rejects.toBe(failure);
    expect(guardStore(store)).toBe(store);
  });
});
