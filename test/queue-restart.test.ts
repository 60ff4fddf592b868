import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { allRun, logged, release, waitForConversation } from './queue-kit.js';
import { fixtureConfig } from './cli.js';
import { call, killAll, startServe } from './serve-process.js';

// `heed serve` on a SQLite file is killed (SIGKILL) while a turn runs and three messages wait behind it,
// then started again on the same file: the turn is taken over, and the three run after it, in order, once.
const dir = mkdtempSync(join(tmpdir(), 'heed-queue-'));
const start = () =>
  startServe(['--config', fixtureConfig('queue.config.ts'), '--db', join(dir, 'heed.db')], { HEED_QUEUE_DIR: dir });

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('queued messages across a restart', () => {
  it('messages queued before the process dies run after the taken-over turn, in order, each once', async () => {
    const first = await start();
    const { id } = (await call(first.url, 'POST', '/api/conversations', { agent: 'desk' })).body;
    // Its answer never comes: the process dies first.
    const holding = call(first.url, 'POST', `/api/conversations/${id}/messages`, { content: 'hold:a' }).catch(
      () => 'connection lost',
    );
    await waitForConversation(
      first.url,
      id,
      'the turn to run',
      (snapshot) => snapshot.runtime.status === 'running',
      first.output,
    );
    const queued = [];
    for (const content of ['second', 'third', 'fourth']) {
      const answer = await call(first.url, 'POST', `/api/conversations/${id}/messages`, { content });
      expect(answer.status).toBe(202);
      queued.push(answer.body.queued);
    }
    expect(queued.map((entry) => entry.position)).toEqual([1, 2, 3]);
    expect(await first.stop('SIGKILL')).toBe('SIGKILL');
    expect(await holding).toBe('connection lost');
    expect(logged(dir).map((entry) => `${entry.what} ${entry.text}`)).toEqual(['model hold:a']);

    // What the file holds after the kill: the turn still claimed, and the three waiting behind it.
    const file = sqliteStore({ path: join(dir, 'heed.db') });
    const stored = await file.getConversation(id);
    await file.close();
    expect(stored).toMatchObject({ status: 'running' });
    expect(stored!.queue!.map((entry) => entry.id)).toEqual(queued.map((entry) => entry.messageId));

    release(dir, 'a');
    const second = await start();
    const after = await waitForConversation(second.url, id, 'every turn to end', allRun, second.output);
    expect(after.runtime.status).toBe('idle');

    // The held message's model call ran again (its reply was never stored); every note ran once, in order, after the restart.
    const calls = logged(dir);
    expect(calls.filter((entry) => entry.what === 'model').map((entry) => entry.text)).toEqual([
      'hold:a',
      'hold:a',
      'second',
      'third',
      'fourth',
    ]);
    expect(calls.filter((entry) => entry.what === 'note').map((entry) => [entry.text, entry.pid])).toEqual(
      ['hold:a', 'second', 'third', 'fourth'].map((text) => [text, second.pid]),
    );
    const users = after.messages.filter((message: { role: string }) => message.role === 'user');
    expect(users.map((message: { parts: Array<{ text: string }> }) => message.parts[0].text)).toEqual([
      'hold:a',
      'second',
      'third',
      'fourth',
    ]);
    expect(users.slice(1).map((message: { id: string }) => message.id)).toEqual(queued.map((entry) => entry.messageId));
    const events = (await call(second.url, 'GET', `/api/conversations/${id}/events?limit=500`)).body.events as Array<{
      type: string;
      data: { trigger?: string };
    }>;
    expect(events.filter((event) => event.type === 'turn.started').map((event) => event.data.trigger)).toEqual([
      'message',
      'recovery',
      'queue',
      'queue',
      'queue',
    ]);
    expect(events.filter((event) => event.type === 'message.queued')).toHaveLength(3);
    expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(4);
    expect(await second.stop()).toBe(0);
  }, 60_000);
});
