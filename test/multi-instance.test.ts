import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../src/client/sse-reader.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';
import { fixtureConfig } from './cli.js';
import { call as callServe, killAll, startServe, type ServeProcess } from './serve-process.js';

// Two real `heed serve` processes on one PostgreSQL database, behind no balancer: the test spreads
// requests over both itself. One is started with --database-url, the other with HEED_DATABASE_URL.
const dir = mkdtempSync(join(tmpdir(), 'heed-multi-'));
const toolLog = join(dir, 'tool.log');
const token = 'token-ada';

function start(args: string[], env: Record<string, string>) {
  return startServe(['--config', fixtureConfig('heed.multi-instance.config.ts'), ...args], {
    HEED_TEST_TOOL_LOG: toolLog,
    HEED_TEST_TOOL_MS: '800',
    ...env,
  });
}

const call = (url: string, method: string, path: string, body?: unknown) => callServe(url, method, path, body, token);

/** Follows the SSE event stream until `turn.completed`; returns each event's number and type, as sent. */
async function followUntilCompleted(
  url: string,
  id: string,
  lastEventId: number,
): Promise<Array<{ seq: number; type: string }>> {
  const response = await fetch(`${url}/api/conversations/${id}/events/stream`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', 'last-event-id': String(lastEventId) },
  });
  expect(response.status).toBe(200);
  const seen: Array<{ seq: number; type: string }> = [];
  const controller = new AbortController();
  for await (const message of readSse(response.body!, controller.signal)) {
    const event = JSON.parse(message.data) as { seq: number; type: string };
    expect(message.id).toBe(String(event.seq));
    seen.push({ seq: event.seq, type: event.type });
    if (event.type === 'turn.completed') break;
  }
  controller.abort();
  return seen;
}

const toolRuns = () =>
  (existsSync(toolLog) ? readFileSync(toolLog, 'utf8').trim().split('\n').filter(Boolean) : []).map((line) => {
    const [step, key, pid] = line.split(' ');
    return { step, key, pid: Number(pid) };
  });

let database: TestDatabase | undefined;
let a: ServeProcess;
let b: ServeProcess;

describe.skipIf(!pgServer)(
  `two heed serve processes on one PostgreSQL database${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
      [a, b] = await Promise.all([
        start(['--database-url', database.url], {}),
        start([], { HEED_DATABASE_URL: database.url }),
      ]);
    }, 30_000);

    afterAll(async () => {
      killAll();
      // Gone, and their connections with them, before the database is dropped.
      await Promise.all([a?.exited, b?.exited]);
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const open = async (url: string) => {
      const conversation = await call(url, 'POST', '/api/conversations', { agent: 'refunds' });
      const paused = await call(url, 'POST', `/api/conversations/${conversation.body.id}/messages`, {
        content: 'refund order 42',
      });
      expect(paused.body.status).toBe('requires_action');
      return { id: conversation.body.id as string, actionId: paused.body.pendingActions[0].id as string };
    };

    it('50 concurrent answers to one action over both processes: one continuation, 49 × 409, nothing lost; resumable on either', async () => {
      const { id, actionId } = await open(a.url);
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          call(index % 2 === 0 ? a.url : b.url, 'POST', `/api/conversations/${id}/actions/${actionId}`, {
            resolution: { type: 'approval', decision: 'allow', comment: `answer ${index}` },
          }),
        ),
      );
      const won = responses.filter((response) => response.status === 200);
      const lost = responses.filter((response) => response.status === 409);
      expect(won).toHaveLength(1);
      expect(won[0].body.status).toBe('completed');
      expect(won[0].body.messages.at(-1).parts[0].text).toBe('Refunded.');
      expect(lost).toHaveLength(49);

      const [stored] = (await call(b.url, 'GET', `/api/conversations/${id}/actions`)).body.actions;
      expect(stored).toMatchObject({ status: 'resolved', resolvedBy: 'ada' });
      for (const response of lost) {
        expect(response.body.error.code).toBe('action_not_pending');
        expect(response.body.error.details.resolution).toEqual(stored.resolution);
      }
      // The winner's answer is the one stored, and nothing else was recorded.
      const winner = responses.indexOf(won[0]);
      expect(stored.resolution.comment).toBe(`answer ${winner}`);
      const events = (await call(a.url, 'GET', `/api/conversations/${id}/events`)).body.events as Array<{
        seq: number;
        type: string;
        data: any;
      }>;
      expect(events.filter((event) => event.type === 'action.resolved')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'turn.started' && event.data.trigger === 'answer')).toHaveLength(
        1,
      );
      expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
      const runs = toolRuns();
      expect(runs.map((run) => run.step)).toEqual(['start', 'finish']);
      expect([a.pid, b.pid]).toContain(runs[0].pid);

      // Resuming the stream from an event number gives the same events on either process.
      const expected = events.filter((event) => event.seq > 2).map((event) => ({ seq: event.seq, type: event.type }));
      expect(await followUntilCompleted(a.url, id, 2)).toEqual(expected);
      expect(await followUntilCompleted(b.url, id, 2)).toEqual(expected);
    });

    it('a process killed mid-continuation: the other finishes the turn after the lease lapses, and a follower on it sees it all', async () => {
      const { id, actionId } = await open(a.url);
      const pausedAt = (await call(b.url, 'GET', `/api/conversations/${id}/events`)).body.events.at(-1).seq as number;
      const following = followUntilCompleted(b.url, id, pausedAt);
      const before = toolRuns().length;

      const lost = call(a.url, 'POST', `/api/conversations/${id}/actions/${actionId}`, {
        resolution: { type: 'approval', decision: 'allow' },
      }).catch(() => 'connection lost');
      await expect
        .poll(
          () =>
            toolRuns()
              .slice(before)
              .map((run) => run.step),
          { timeout: 5000 },
        )
        .toEqual(['start']);
      await a.stop('SIGKILL');
      expect(await lost).toBe('connection lost');

      const seen = await following;
      const snapshot = (await call(b.url, 'GET', `/api/conversations/${id}`)).body;
      expect(snapshot.runtime.status).toBe('idle');
      expect(snapshot.messages.at(-1).parts[0].text).toBe('Refunded.');
      const [action] = (await call(b.url, 'GET', `/api/conversations/${id}/actions`)).body.actions;
      expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'ada' });

      // A started the refund and died; B ran the same call (same idempotency key) to the end, once.
      const runs = toolRuns().slice(before);
      expect(runs.map((run) => [run.step, run.pid])).toEqual([
        ['start', a.pid],
        ['start', b.pid],
        ['finish', b.pid],
      ]);
      expect(new Set(runs.map((run) => run.key)).size).toBe(1);

      // The follower on B saw the turn that A began and B finished, in order, without a gap or a repeat.
      const stored = (await call(b.url, 'GET', `/api/conversations/${id}/events`)).body.events as Array<{
        seq: number;
        type: string;
        data: any;
      }>;
      expect(seen).toEqual(
        stored.filter((event) => event.seq > pausedAt).map((event) => ({ seq: event.seq, type: event.type })),
      );
      expect(seen.map((event) => event.seq)).toEqual(seen.map((_, index) => pausedAt + 1 + index));
      expect(stored.filter((event) => event.type === 'turn.started').map((event) => event.data.trigger)).toEqual([
        'message',
        'answer',
        'recovery',
      ]);
      expect(await b.stop()).toBe(0);
    });
  },
);
