import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { conversation, describeStoreContract } from '../store-contract.js';
import { eventTypeCodes, migrations } from './migrations.js';
import { indexedQueries, openDatabase, sqliteStore } from './sqlite-store.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'heed-sqlite-'));

describeStoreContract('sqlite', async () => {
  const dir = tempDir();
  const path = join(dir, 'heed.db');
  return {
    store: sqliteStore({ path }),
    reopen: async () => sqliteStore({ path }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('sqlite store', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = tempDir();
    path = join(dir, 'heed.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies the WAL back into the file from the background, without a commit doing it', async () => {
    const store = sqliteStore({ path });
    await store.migrate();
    const before = statSync(path).size;
    for (let index = 0; index < 300; index++) {
      const at = new Date().toISOString();
      const id = `c_${index}`;
      await store.commit({
        conversationId: id,
        create: {
          id,
          agent: 'a',
          ownerId: null,
          channel: null,
          status: 'idle',
          version: 0,
          metadata: { pad: 'x'.repeat(500) },
          createdAt: at,
          updatedAt: at,
          actionDueAt: null,
          leaseOwner: null,
          leaseExpiresAt: null,
          tokensUsed: 0,
          lastEventSeq: 0,
          intakeDone: false,
        },
      });
    }
    const deadline = Date.now() + 3000;
    while (statSync(path).size <= before && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(statSync(path).size).toBeGreaterThan(before);
    await store.close();
  });

  it('runs in WAL mode with synchronous NORMAL by default, FULL when asked', () => {
    const normal = openDatabase({ path });
    expect(normal.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(normal.pragma('synchronous', { simple: true })).toBe(1);
    expect(normal.pragma('busy_timeout', { simple: true })).toBe(5000);
    normal.close();
    const full = openDatabase({ path, synchronous: 'full' });
    expect(full.pragma('synchronous', { simple: true })).toBe(2);
    full.close();
  });

  it('at FULL, a commit nobody waits on (waitForFlush: false) is written at NORMAL, and FULL is back for the next', async () => {
    // The connection the store opens, found through better-sqlite3's own `pragma` as the store calls it.
    const original = Database.prototype.pragma;
    const set: string[] = [];
    let connection: Database.Database | undefined;
    const spy = vi.spyOn(Database.prototype, 'pragma').mockImplementation(function (
      this: Database.Database,
      source: string,
      options?: Database.PragmaOptions,
    ) {
      if (source.startsWith('synchronous =')) ((connection = this), set.push(source));
      return original.call(this, source, options);
    });
    try {
      for (const [synchronous, expected] of [
        ['full', ['synchronous = FULL', 'synchronous = NORMAL', 'synchronous = FULL']],
        ['normal', ['synchronous = NORMAL']],
      ] as const) {
        set.length = 0;
        const store = sqliteStore({ path: join(dir, `${synchronous}.db`), synchronous, checkpoint: 'inline' });
        await store.migrate();
        const created = conversation(`c_${synchronous}`);
        expect((await store.commit({ conversationId: created.id, create: created, waitForFlush: false })).ok).toBe(
          true,
        );
        // The open sets the mode; at FULL the unwaited commit drops to NORMAL and puts FULL back; at NORMAL nothing moves.
        expect(set).toEqual(expected);
        expect(original.call(connection!, 'synchronous', { simple: true })).toBe(synchronous === 'full' ? 2 : 1);
        await store.close();
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('applies migrations once; running them again changes nothing', async () => {
    // Versions only grow (the runner applies those above the stored one, in order); numbers handed out per change may leave a gap.
    expect(migrations.map((m) => m.version)).toEqual(
      [...new Set(migrations.map((m) => m.version))].sort((x, y) => x - y),
    );
    const store = sqliteStore({ path });
    await store.migrate();
    await store.commit({ conversationId: 'c1', create: conversation('c1') });
    await store.migrate();
    const second = sqliteStore({ path });
    await second.migrate();
    expect((await second.getConversation('c1'))?.id).toBe('c1');
    await second.close();
    await store.close();
    const db = new Database(path);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations[migrations.length - 1].version);
    db.close();
  });

  it('reads a version-1 file: its "who settled" labels split into resolvedBy and channel', async () => {
    const old = new Database(path);
    old.exec(migrations[0].sql);
    old.pragma('user_version = 1');
    old
      .prepare(
        `INSERT INTO conversations (key, id, agent, status, version, created_at, updated_at, tokens_used, last_event_seq, intake_done)
      VALUES (1, 'c1', 'support', 'idle', 3, 0, 0, 0, 0, 0)`,
      )
      .run();
    const insert =
      old.prepare(`INSERT INTO actions (conversation_key, id, message_id, tool_call_id, tool_name, origin, journal_index, status,
      request, created_at, on_timeout, resolution, resolved_by, resolved_at) VALUES (1, ?, 'm', ?, 't', 'tool', 0, ?, '{"kind":"approval"}', 0, 'deny', ?, ?, ?)`);
    const settled = '{"type":"approval","decision":"allow"}';
    for (const [id, status, by] of [
      ['a1', 'resolved', 'ada'],
      ['a2', 'resolved', 'anonymous'],
      ['a3', 'expired', 'system:timeout'],
      ['a4', 'cancelled', 'system'],
      ['a5', 'pending', null],
    ]) {
      insert.run(id, `call-${id}`, status, by === null ? null : settled, by, by === null ? null : 1);
    }
    old.prepare(`INSERT INTO remembered_tools VALUES (1, 't', 'anonymous', 0)`).run();
    old.close();
    const store = sqliteStore({ path });
    await store.migrate();
    const read = (await store.listActions('c1')).map(({ id, resolvedBy, channel }) => ({ id, resolvedBy, channel }));
    expect(read).toEqual([
      { id: 'a1', resolvedBy: 'ada', channel: 'api' },
      { id: 'a2', resolvedBy: null, channel: 'api' },
      { id: 'a3', resolvedBy: null, channel: 'timeout' },
      { id: 'a4', resolvedBy: null, channel: 'system' },
      { id: 'a5', resolvedBy: null, channel: null },
    ]);
    expect(await store.listRememberedTools('c1')).toMatchObject([{ toolName: 't', rememberedBy: null }]);
    await store.close();
  });

  it('reads a version-4 file: its events, moved to the rowid table, come back in order with their numbers, and new ones follow', async () => {
    const old = new Database(path);
    for (const migration of migrations.filter((m) => m.version <= 4)) old.exec(migration.sql);
    old.pragma('user_version = 4');
    const conversationRow = old.prepare(
      `INSERT INTO conversations (key, id, agent, status, version, created_at, updated_at, tokens_used, last_event_seq, intake_done)
      VALUES (?, ?, 'support', 'idle', 1, 0, 0, 0, ?, 0)`,
    );
    conversationRow.run(1, 'c1', 3);
    conversationRow.run(2, 'c2', 1);
    const event = old.prepare('INSERT INTO events (conversation_key, seq, type, data, at) VALUES (?, ?, ?, ?, ?)');
    // Written out of order on purpose: the order read back comes from the numbers.
    event.run(1, 3, eventTypeCodes['turn.completed'], '{}', 3000);
    event.run(2, 1, eventTypeCodes['turn.started'], '{"trigger":"message"}', 500);
    event.run(1, 1, eventTypeCodes['turn.started'], '{"trigger":"message"}', 1000);
    event.run(1, 2, eventTypeCodes['message.created'], '{"messageId":"m1","role":"assistant"}', 2000);
    old.close();
    const store = sqliteStore({ path });
    await store.migrate();
    const brief = (events: { seq: number; type: string; data: unknown; at: string }[]) =>
      events.map(({ seq, type, data, at }) => ({ seq, type, data, at }));
    expect(brief(await store.listEvents('c1'))).toEqual([
      { seq: 1, type: 'turn.started', data: { trigger: 'message' }, at: new Date(1000).toISOString() },
      {
        seq: 2,
        type: 'message.created',
        data: { messageId: 'm1', role: 'assistant' },
        at: new Date(2000).toISOString(),
      },
      { seq: 3, type: 'turn.completed', data: {}, at: new Date(3000).toISOString() },
    ]);
    expect(brief(await store.listEvents('c1', { after: 1, limit: 1 })).map((e) => e.seq)).toEqual([2]);
    expect(brief(await store.listEvents('c2')).map((e) => e.seq)).toEqual([1]);
    const added = await store.commit({
      conversationId: 'c1',
      expectVersion: 1,
      events: [{ type: 'turn.started', at: new Date(4000).toISOString(), data: { trigger: 'message' } }],
    });
    expect(added).toMatchObject({ ok: true, events: [{ seq: 4 }] });
    expect((await store.listEvents('c1', { after: 3 })).map((e) => e.seq)).toEqual([4]);
    await store.close();
  });

  it('lets two stores on one file write in turn and see each other', async () => {
    const one = sqliteStore({ path });
    const two = sqliteStore({ path });
    await one.migrate();
    await two.migrate();
    expect((await one.commit({ conversationId: 'c1', create: conversation('c1') })).ok).toBe(true);
    expect(await two.commit({ conversationId: 'c1', expectVersion: 1, set: { status: 'running' } })).toMatchObject({
      ok: true,
    });
    expect(await one.commit({ conversationId: 'c1', expectVersion: 1, set: { status: 'idle' } })).toEqual({
      ok: false,
      reason: 'version',
    });
    expect((await one.getConversation('c1'))?.status).toBe('running');
    await one.close();
    await two.close();
  });

  it('finds due conversations and pending actions through indexes', async () => {
    const store = sqliteStore({ path });
    await store.migrate();
    await store.close();
    const db = new Database(path);
    const plan = (sql: string) =>
      (
        db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ ownerId: 'x', afterCreatedAt: 0, afterId: '', limit: 1 }) as {
          detail: string;
        }[]
      )
        .map((row) => row.detail)
        .join('\n');
    const positional = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(0, 1) as { detail: string }[]).map((row) => row.detail).join('\n');
    expect(positional(indexedQueries.due)).toMatch(/USING INDEX conversations_sweep/);
    for (const owner of [false, true]) {
      for (const after of [false, true]) {
        const detail = plan(indexedQueries.pendingActions({ owner, after }));
        expect(detail).toMatch(/SCAN a USING INDEX actions_pending|SEARCH a USING INDEX actions_pending/);
        expect(detail).not.toMatch(/TEMP B-TREE/);
      }
    }
    db.close();
  });
});
