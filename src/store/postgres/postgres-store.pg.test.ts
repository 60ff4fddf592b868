import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from '../../../test/pg.js';
import type { EventNotice } from '../store.js';
import { conversation, describeStoreContract } from '../store-contract.js';
import { migrations } from './migrations.js';
import { eventChannel, postgresStore } from './postgres-store.js';
import { openPool } from './pool.js';

// One fresh database for this file; each contract test gets a schema of its own in it.
let database: TestDatabase | undefined;
let schemas = 0;
const nextSchema = () => `contract_${++schemas}_${process.pid}`;

describe.skipIf(!pgServer)(`postgres store${pgServer ? '' : ` (${pgSkipReason})`}`, () => {
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  describeStoreContract('postgres', async () => {
    const schema = nextSchema();
    const open = () => postgresStore({ connectionString: database!.url, schema, max: 4 });
    return {
      store: open(),
      reopen: async () => open(),
      cleanup: async () => void (await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)),
    };
  });

  describe('postgres store', () => {
    it("synchronousCommit 'off' opens the store's connections with synchronous_commit off, and it commits and reads as usual", async () => {
      const setting = async (options: { synchronousCommit?: 'on' | 'off' }) => {
        const { pool } = await openPool({ connectionString: database!.url, max: 1, ...options });
        try {
          return (await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]
            .synchronous_commit;
        } finally {
          await pool.end();
        }
      };
      expect(await setting({ synchronousCommit: 'off' })).toBe('off');
      expect(await setting({})).toBe('on');
      const store = postgresStore({
        connectionString: database!.url,
        schema: nextSchema(),
        max: 2,
        synchronousCommit: 'off',
      });
      await store.migrate();
      expect((await store.commit({ conversationId: 'c1', create: conversation('c1') })).ok).toBe(true);
      expect((await store.readConversation('c1', { messages: true }))?.messages).toEqual([]);
      await store.close();
    });

    it('a commit that need not wait for its flush turns synchronous_commit off for itself only', async () => {
      const { pool } = await openPool({ connectionString: database!.url, max: 1 });
      const store = postgresStore({ pool, schema: nextSchema() });
      try {
        await store.migrate();
        expect((await store.commit({ conversationId: 'c1', create: conversation('c1') })).ok).toBe(true);
        const claimed = await store.commit({
          conversationId: 'c1',
          expectVersion: 1,
          set: { status: 'running' },
          waitForFlush: false,
        });
        expect(claimed.ok).toBe(true);
        expect((await store.getConversation('c1'))?.status).toBe('running');
        // The one connection of the pool is back to the server's setting for whatever it runs next.
        const shown = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
        expect(shown.rows[0].synchronous_commit).toBe('on');
      } finally {
        await store.close();
        await pool.end();
      }
    });

    it('applies migrations once under a lock: stores starting together agree, running them again changes nothing', async () => {
      // Versions only grow (the runner applies those above the stored one, in order); numbers handed out per change may leave a gap.
      expect(migrations.map((m) => m.version)).toEqual(
        [...new Set(migrations.map((m) => m.version))].sort((x, y) => x - y),
      );
      const schema = nextSchema();
      const stores = Array.from({ length: 4 }, () =>
        postgresStore({ connectionString: database!.url, schema, max: 2 }),
      );
      await Promise.all(stores.map((store) => store.migrate()));
      await stores[0].migrate();
      expect((await stores[1].commit({ conversationId: 'c1', create: conversation('c1') })).ok).toBe(true);
      expect((await stores[3].getConversation('c1'))?.id).toBe('c1');
      const applied = await sql(`SELECT version FROM ${schema}.heed_migrations ORDER BY version`);
      expect(applied.map((row) => row.version)).toEqual(migrations.map((m) => m.version));
      await Promise.all(stores.map((store) => store.close()));
    });

    it('refuses to run on a schema newer than itself', async () => {
      const schema = nextSchema();
      const store = postgresStore({ connectionString: database!.url, schema, max: 1 });
      await store.migrate();
      await sql(`INSERT INTO ${schema}.heed_migrations (version, applied_at) VALUES (999, 0)`);
      await expect(store.migrate()).rejects.toThrow(/newer than this Heed/);
      await store.close();
    });

    it('uses a pool it is given and leaves it open', async () => {
      const pool = new pg.Pool({ connectionString: database!.url, max: 2 });
      const schema = nextSchema();
      const store = postgresStore({ pool, schema });
      await store.migrate();
      expect((await store.commit({ conversationId: 'c1', create: conversation('c1') })).ok).toBe(true);
      await store.close();
      expect((await pool.query(`SELECT count(*)::int AS n FROM ${schema}.conversations`)).rows[0].n).toBe(1);
      await pool.end();
    });

    it('notifies listeners of committed events only, with the last event number', async () => {
      const schema = nextSchema();
      const writer = postgresStore({ connectionString: database!.url, schema, max: 2 });
      const reader = postgresStore({ connectionString: database!.url, schema, max: 2 });
      await writer.migrate();
      const notices: EventNotice[] = [];
      const stop = await reader.listen!((notice) => notices.push(notice));
      const event = { type: 'turn.started' as const, data: {}, at: new Date().toISOString() };
      await writer.commit({ conversationId: 'c1', create: conversation('c1'), events: [event, event] });
      await writer.commit({ conversationId: 'c1', expectVersion: 1, set: { status: 'running' } });
      expect(await writer.commit({ conversationId: 'c1', expectVersion: 1, events: [event] })).toEqual({
        ok: false,
        reason: 'version',
      });
      await writer.commit({ conversationId: 'c1', expectVersion: 2, events: [event] });
      await expect.poll(() => notices.length).toBe(2);
      expect(notices).toEqual([
        { conversationId: 'c1', seq: 2 },
        { conversationId: 'c1', seq: 3 },
      ]);
      await stop();
      const watcher = await watch(eventChannel(schema));
      await writer.commit({ conversationId: 'c1', expectVersion: 3, events: [event] });
      // Whatever that commit sent has been delivered once a later NOTIFY has.
      await watcher.caughtUp();
      expect(notices).toHaveLength(2);
      await watcher.end();
      await Promise.all([writer.close(), reader.close()]);
    });

    it('reconnects a LISTEN connection that dropped, and says notices may have been missed', async () => {
      const schema = nextSchema();
      const store = postgresStore({ connectionString: database!.url, schema, max: 2 });
      await store.migrate();
      const notices: EventNotice[] = [];
      let reconnects = 0;
      await store.listen!(
        (notice) => notices.push(notice),
        () => reconnects++,
      );
      const channel = eventChannel(schema);
      await sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN "${channel}"'`);
      await expect.poll(() => reconnects, { timeout: 5000 }).toBe(1);
      await store.commit({
        conversationId: 'c1',
        create: conversation('c1'),
        events: [{ type: 'turn.started', data: {}, at: new Date().toISOString() }],
      });
      await expect.poll(() => notices).toEqual([{ conversationId: 'c1', seq: 1 }]);
      await store.close();
    });

    it('sends no NOTIFY while no store listens, and one per commit with events once one does', async () => {
      const schema = nextSchema();
      const writer = postgresStore({ connectionString: database!.url, schema, max: 2 });
      const reader = postgresStore({ connectionString: database!.url, schema, max: 2 });
      await writer.migrate();
      // A bare LISTEN on the channel sees every NOTIFY sent, whoever listens through a store.
      const watcher = await watch(eventChannel(schema));
      const { seen } = watcher;
      const event = { type: 'turn.started' as const, data: {}, at: new Date().toISOString() };
      await writer.commit({ conversationId: 'c1', create: conversation('c1'), events: [event] });
      // Whatever that commit sent has been delivered once a later NOTIFY has.
      await watcher.caughtUp();
      expect(seen).toEqual([]);
      const notices: EventNotice[] = [];
      const stop = await reader.listen!((notice) => notices.push(notice));
      await writer.commit({ conversationId: 'c1', expectVersion: 1, events: [event] });
      await expect.poll(() => notices).toEqual([{ conversationId: 'c1', seq: 2 }]);
      // The watcher is another connection: the same NOTIFY may reach it a moment after the reader.
      await expect.poll(() => seen).toHaveLength(1);
      await stop();
      await writer.commit({ conversationId: 'c1', expectVersion: 2, events: [event] });
      await watcher.caughtUp();
      expect(seen).toHaveLength(1);
      await watcher.end();
      await Promise.all([writer.close(), reader.close()]);
    });

    it('finds due conversations and pending actions through indexes', async () => {
      const schema = nextSchema();
      const store = postgresStore({ connectionString: database!.url, schema, max: 1 });
      await store.migrate();
      await store.close();
      const plan = async (query: string) => {
        const client = new pg.Client({ connectionString: database!.url });
        await client.connect();
        try {
          await client.query('SET enable_seqscan = off');
          return (await client.query(`EXPLAIN ${query}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
        } finally {
          await client.end();
        }
      };
      expect(
        await plan(`SELECT id FROM ${schema}.conversations WHERE action_due_at <= 5 ORDER BY action_due_at LIMIT 10`),
      ).toMatch(/conversations_action_due/);
      expect(
        await plan(
          `SELECT id FROM ${schema}.conversations WHERE status = 'running' AND lease_expires_at < 5 ORDER BY lease_expires_at LIMIT 10`,
        ),
      ).toMatch(/conversations_lease/);
      expect(
        await plan(`SELECT id FROM ${schema}.actions WHERE status = 'pending' ORDER BY created_at, id LIMIT 10`),
      ).toMatch(/actions_pending/);
    });
  });
});

/**
 * A bare LISTEN on `channel`: `seen` holds the payloads of the NOTIFYs it got (the store's), and
 * `caughtUp()` sends a NOTIFY of its own from another connection and waits until it arrives. PostgreSQL
 * delivers notifications in the order their transactions committed, so every NOTIFY of a commit made
 * before has been delivered by then, to this connection and to any other listening.
 */
async function watch(channel: string) {
  const client = new pg.Client({ connectionString: database!.url });
  await client.connect();
  const seen: string[] = [];
  const marks: string[] = [];
  client.on('notification', (message: { payload?: string }) => {
    const payload = message.payload ?? '';
    (payload.startsWith('caught-up ') ? marks : seen).push(payload);
  });
  await client.query(`LISTEN "${channel}"`);
  let sent = 0;
  return {
    seen,
    async caughtUp() {
      const mark = `caught-up ${++sent}`;
      await sql(`NOTIFY "${channel}", '${mark}'`);
      await expect.poll(() => marks).toContain(mark);
    },
    end: () => client.end(),
  };
}

async function sql(text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: database!.url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}
