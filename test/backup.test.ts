import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, fixtureConfig, root } from './cli.js';
import { call, killAll, startServe } from './serve-process.js';

// `heed backup` against a SQLite file that a `heed serve` process keeps writing, then a server on the copy.
const dir = mkdtempSync(join(tmpdir(), 'heed-backup-'));
const config = fixtureConfig('heed.config.ts');

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

function heed(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { cwd: root }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

/** A conversation paused on its refund approval: created, sent to and paused, all answered 2xx. */
async function pausedConversation(url: string): Promise<string> {
  const conversation = await call(url, 'POST', '/api/conversations', { agent: 'refunds' });
  expect(conversation.status).toBe(201);
  const sent = await call(url, 'POST', `/api/conversations/${conversation.body.id}/messages`, { content: 'refund' });
  expect(sent.body.status).toBe('requires_action');
  return conversation.body.id as string;
}

describe('heed backup', () => {
  it('copies the store while a server writes to it; the copy opens as a store and serves what it held', async () => {
    const db = join(dir, 'heed.db');
    const copy = join(dir, 'copy.db');
    const server = await startServe(['--db', db, '--config', config]);

    // Four writers start conversations and pause them for as long as the test lets them.
    const done: Array<{ id: string; at: number }> = [];
    let writing = true;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) done.push({ id: await pausedConversation(server.url), at: performance.now() });
    });
    await expect.poll(() => done.length).toBeGreaterThanOrEqual(20);

    const before = done.map((entry) => entry.id);
    const started = performance.now();
    const backup = await heed(['backup', '--db', db, '--to', copy]);
    const ended = performance.now();
    const duringBackup = done.filter((entry) => entry.at > started && entry.at < ended).length;
    // Keep writing until the copy is in use elsewhere, then stop.
    writing = false;
    await Promise.all(writers);

    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    const copied = Number(/: (\d+) conversations, \d+ bytes, in \d+ ms\.\n$/.exec(backup.stdout)?.[1]);
    // The server kept writing while the command ran: the copy is one snapshot in the middle of that.
    expect(duringBackup).toBeGreaterThan(0);
    expect(copied).toBeGreaterThanOrEqual(before.length);
    expect(copied).toBeLessThan(done.length);
    // Only the copy is left beside the store: no partial file, and the copy is one file (its WAL folded in).
    expect(readdirSync(dir).filter((name) => name.startsWith('copy'))).toEqual(['copy.db']);

    // The copy holds the conversations the command counted (read straight from the file: a fast server writes
    // more of them before the snapshot than one page of the list holds).
    const file = new Database(copy, { readonly: true });
    expect(file.prepare('SELECT count(*) FROM conversations').pluck().get()).toBe(copied);
    file.close();

    // A second server on the copy: it lists them, and every conversation paused before the backup began is
    // there, paused.
    const restored = await startServe(['--db', copy, '--config', config]);
    const listed = await call(restored.url, 'GET', '/api/conversations?limit=200');
    expect(listed.status).toBe(200);
    expect(listed.body.conversations).toHaveLength(Math.min(copied, 200));
    for (const id of before) {
      const read = await call(restored.url, 'GET', `/api/conversations/${id}`);
      expect(read.status).toBe(200);
      expect(read.body.conversation.status).toBe('requires_action');
      expect(read.body.pendingActions).toHaveLength(1);
    }

    // It serves: the approval waiting in the copy is answered there and the turn runs to its end.
    const [first] = before;
    const [pending] = (await call(restored.url, 'GET', `/api/conversations/${first}`)).body.pendingActions;
    const answered = await call(restored.url, 'POST', `/api/conversations/${first}/actions/${pending.id}`, {
      resolution: { type: 'approval', decision: 'allow' },
    });
    expect(answered.status).toBe(200);
    await expect
      .poll(async () => (await call(restored.url, 'GET', `/api/conversations/${first}`)).body.messages.at(-1))
      .toMatchObject({ role: 'assistant', parts: [{ type: 'text', text: 'Refunded.' }] });
    // The copy is its own store: the original's conversation is still waiting there.
    expect((await call(server.url, 'GET', `/api/conversations/${first}`)).body.conversation.status).toBe(
      'requires_action',
    );

    expect(await restored.stop()).toBe(0);
    expect(await server.stop()).toBe(0);
  });

  it('refuses to overwrite a file, a store that is not there, and PostgreSQL, saying what to do', async () => {
    const db = join(dir, 'small.db');
    const server = await startServe(['--db', db, '--config', config]);
    await pausedConversation(server.url);
    const target = join(dir, 'small-copy.db');
    expect((await heed(['backup', '--db', db, '--to', target])).code).toBe(0);

    const again = await heed(['backup', '--db', db, '--to', target]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`heed backup: ${target} exists already; give a new file to back up to.\n`);

    const missing = await heed(['backup', '--db', join(dir, 'nothing.db'), '--to', join(dir, 'x.db')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`heed backup: There is no SQLite file at ${join(dir, 'nothing.db')} to back up.\n`);
    expect(existsSync(join(dir, 'nothing.db'))).toBe(false);

    const noTarget = await heed(['backup', '--db', db]);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('--to <file> is needed');

    const postgres = await heed(['backup', '--database-url', 'postgres://127.0.0.1/heed', '--to', join(dir, 'p.db')]);
    expect(postgres.code).toBe(2);
    expect(postgres.stderr).toContain('pg_dump');
    expect(await server.stop()).toBe(0);
    // A deadline, not a wait: six processes start one after another, which on two busy cores passed 20 s.
  }, 60_000);
});
