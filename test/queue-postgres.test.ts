import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';
import { allRun, logged, release, waitForConversation } from './queue-kit.js';
import { fixtureConfig } from './cli.js';
import { call, killAll, startServe, type ServeProcess } from './serve-process.js';

// Two `heed serve` processes on one PostgreSQL database (test/fixtures/queue.config.ts): messages queued
// through either one while a turn runs on one of them run after it, in order, once; and when the process
// running the turn dies, the other takes the turn over and runs what was queued.
const dir = mkdtempSync(join(tmpdir(), 'heed-queue-pg-'));
let database: TestDatabase | undefined;
let a: ServeProcess;
let b: ServeProcess;

const texts = (what: 'model' | 'note', key: string) =>
  logged(dir)
    .filter((entry) => entry.what === what && entry.text.includes(key))
    .map((entry) => entry);

describe.skipIf(!pgServer)(
  `queued messages on two heed serve processes on one PostgreSQL database${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
      const start = () =>
        startServe(['--config', fixtureConfig('queue.config.ts'), '--database-url', database!.url], {
          HEED_QUEUE_DIR: dir,
        });
      [a, b] = await Promise.all([start(), start()]);
    }, 60_000);

    afterAll(async () => {
      killAll();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('queued through either instance, they run after the turn in order, each once, started by the instance whose turn ended', async () => {
      const { id } = (await call(a.url, 'POST', '/api/conversations', { agent: 'desk' })).body;
      const holding = call(a.url, 'POST', `/api/conversations/${id}/messages`, { content: 'hold:p1 one' });
      await waitForConversation(b.url, id, 'the turn to run', (snapshot) => snapshot.runtime.status === 'running');
      const sent = [];
      for (const [server, content] of [
        [b, 'p1 two'],
        [a, 'p1 three'],
        [b, 'p1 four'],
      ] as const) {
        const answer = await call(server.url, 'POST', `/api/conversations/${id}/messages`, { content });
        expect(answer.status).toBe(202);
        sent.push(answer.body.queued);
      }
      expect(sent.map((entry) => entry.position)).toEqual([1, 2, 3]);
      expect(
        (await call(a.url, 'GET', `/api/conversations/${id}`)).body.queuedMessages.map(
          (entry: { text: string }) => entry.text,
        ),
      ).toEqual(['p1 two', 'p1 three', 'p1 four']);

      release(dir, 'p1');
      expect((await holding).body.status).toBe('completed');
      const after = await waitForConversation(b.url, id, 'every turn to end', allRun);
      expect(after.runtime.status).toBe('idle');
      expect(texts('model', 'p1').map((entry) => entry.text)).toEqual(['hold:p1 one', 'p1 two', 'p1 three', 'p1 four']);
      expect(texts('note', 'p1').map((entry) => [entry.text, entry.pid])).toEqual(
        ['hold:p1 one', 'p1 two', 'p1 three', 'p1 four'].map((text) => [text, a.pid]),
      );
      const users = after.messages.filter((message: { role: string }) => message.role === 'user');
      expect(users.slice(1).map((message: { id: string }) => message.id)).toEqual(sent.map((entry) => entry.messageId));
      const fromA = (await call(a.url, 'GET', `/api/conversations/${id}/events?limit=500`)).body.events;
      const fromB = (await call(b.url, 'GET', `/api/conversations/${id}/events?limit=500`)).body.events;
      expect(fromA).toEqual(fromB);
      expect(
        fromA
          .filter((event: { type: string }) => event.type === 'turn.started')
          .map((event: { data: { trigger: string } }) => event.data.trigger),
      ).toEqual(['message', 'queue', 'queue', 'queue']);
    }, 60_000);

    it('when the instance running the turn dies, the other takes the turn over and runs what was queued, in order, once', async () => {
      const { id } = (await call(a.url, 'POST', '/api/conversations', { agent: 'desk' })).body;
      const holding = call(a.url, 'POST', `/api/conversations/${id}/messages`, { content: 'hold:p2 one' }).catch(
        () => 'connection lost',
      );
      await waitForConversation(b.url, id, 'the turn to run', (snapshot) => snapshot.runtime.status === 'running');
      for (const content of ['p2 two', 'p2 three'])
        expect((await call(b.url, 'POST', `/api/conversations/${id}/messages`, { content })).status).toBe(202);
      await a.stop('SIGKILL');
      expect(await holding).toBe('connection lost');
      release(dir, 'p2');
      const after = await waitForConversation(b.url, id, 'every turn to end', allRun, b.output);
      expect(after.runtime.status).toBe('idle');
      // The held call ran again on B (its reply was never stored); each note once, on B, in order.
      expect(texts('model', 'p2').map((entry) => entry.text)).toEqual([
        'hold:p2 one',
        'hold:p2 one',
        'p2 two',
        'p2 three',
      ]);
      expect(texts('note', 'p2').map((entry) => [entry.text, entry.pid])).toEqual(
        ['hold:p2 one', 'p2 two', 'p2 three'].map((text) => [text, b.pid]),
      );
      const events = (await call(b.url, 'GET', `/api/conversations/${id}/events?limit=500`)).body.events;
      expect(
        events
          .filter((event: { type: string }) => event.type === 'turn.started')
          .map((event: { data: { trigger: string } }) => event.data.trigger),
      ).toEqual(['message', 'recovery', 'queue', 'queue']);
    }, 60_000);
  },
);
