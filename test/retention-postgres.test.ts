import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { postgresStore } from '../src/store/postgres/postgres-store.js';
import { FINISHED, PAUSED, pauseSome, sweepThenAnswer, writeFinished } from './retention-kit.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';

/*
 * Retention on PostgreSQL (docs/operating.md#retention): the sweep deletes 10,000 finished conversations in
 * batches, never one of the 100 paused ones, each still answered afterwards. Freed space is autovacuum's.
 */

let database: TestDatabase | undefined;

describe.skipIf(!pgServer)(`retention on PostgreSQL${pgServer ? '' : ` (${pgSkipReason})`}`, () => {
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it(`deletes ${FINISHED} finished conversations and keeps the ${PAUSED} paused ones answerable`, async () => {
    const open = () => postgresStore({ connectionString: database!.url, schema: 'retention', max: 8 });
    const paused = await pauseSome(open());
    const store = open();
    await store.migrate();
    await writeFinished(store);
    await store.close();

    await sweepThenAnswer(open(), paused);
    const client = new pg.Client({ connectionString: database!.url });
    await client.connect();
    try {
      const counts = await client.query<{ conversations: string; messages: string; events: string }>(
        `SELECT (SELECT count(*) FROM retention.conversations) AS conversations,
                (SELECT count(*) FROM retention.messages) AS messages,
                (SELECT count(*) FROM retention.events) AS events`,
      );
      expect(Number(counts.rows[0].conversations)).toBe(PAUSED);
      // Only the paused conversations' messages are left: each has its user message, the call, the result, the reply.
      expect(Number(counts.rows[0].messages)).toBeLessThanOrEqual(PAUSED * 4);
    } finally {
      await client.end();
    }
  }, 240_000);
});
