import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { FINISHED, pauseSome, sweepThenAnswer, writeFinished } from './retention-kit.js';

/*
 * Retention on a SQLite file (docs/operating.md#retention): the sweep deletes 10,000 finished conversations in
 * batches, never one of the 100 paused ones (each still answered afterwards), and the file shrinks.
 */

describe('retention on SQLite', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The file's size once its WAL is copied back in (another connection, as an operator's tool would). */
  function settledSize(path: string): number {
    const db = new Database(path);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    return statSync(path).size;
  }

  it(`deletes ${FINISHED} finished conversations, keeps the paused ones answerable, and the file shrinks`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'heed-retention-'));
    const path = join(dir, 'heed.db');
    const paused = await pauseSome(sqliteStore({ path }));
    const store = sqliteStore({ path });
    await store.migrate();
    await writeFinished(store);
    await store.close();
    const before = settledSize(path);

    await sweepThenAnswer(sqliteStore({ path }), paused);
    const after = settledSize(path);
    expect(after).toBeLessThan(before / 2);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    db.close();
  }, 180_000);
});
