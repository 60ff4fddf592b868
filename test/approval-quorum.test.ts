import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';
import { fixtureConfig } from './cli.js';
import { call, killAll, startServe, type ServeProcess } from './serve-process.js';

// Two real `heed serve` processes on one PostgreSQL database: the two deciding votes of a 2-of-3 quorum
// arrive at once, one on each; exactly one decides and continues the turn, and the tool runs once.
const dir = mkdtempSync(join(tmpdir(), 'heed-quorum-'));
const toolLog = join(dir, 'tool.log');
const runs = () => (existsSync(toolLog) ? readFileSync(toolLog, 'utf8').trim().split('\n').filter(Boolean) : []);

let database: TestDatabase | undefined;
let a: ServeProcess;
let b: ServeProcess;

describe.skipIf(!pgServer)(`a quorum voted on two heed serve processes${pgServer ? '' : ` (${pgSkipReason})`}`, () => {
  beforeAll(async () => {
    database = await freshDatabase();
    const start = () =>
      startServe(['--config', fixtureConfig('heed.quorum.config.ts'), '--database-url', database!.url], {
        HEED_TEST_TOOL_LOG: toolLog,
      });
    [a, b] = await Promise.all([start(), start()]);
  }, 30_000);

  afterAll(async () => {
    killAll();
    // Gone, and their connections with them, before the database is dropped.
    await Promise.all([a?.exited, b?.exited]);
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two deciding votes at once on two instances: one 200 that continues, one 409 with every vote; the tool runs once', async () => {
    for (let round = 0; round < 5; round++) {
      const { id } = (await call(a.url, 'POST', '/api/conversations', { agent: 'payments' }, 'ada')).body;
      const sent = (await call(a.url, 'POST', `/api/conversations/${id}/messages`, { content: 'pay acme' }, 'ada'))
        .body;
      const actionId = sent.pendingActions[0].id;
      const path = `/api/conversations/${id}/actions/${actionId}`;
      const allow = { resolution: { type: 'approval', decision: 'allow' } };

      expect((await call(b.url, 'POST', path, allow, 'ada')).status).toBe(403);
      const first = await call(b.url, 'POST', path, allow, 'bob');
      expect([first.status, first.body.status]).toEqual([200, 'requires_action']);
      expect((await call(a.url, 'POST', path, allow, 'bob')).body.error.code).toBe('already_voted');

      const both = await Promise.all([
        call(a.url, 'POST', path, allow, 'cat'),
        call(b.url, 'POST', path, allow, 'dan'),
      ]);
      const statuses = both.map((entry) => entry.status).sort();
      expect(statuses).toEqual([200, 409]);
      const winner = both.find((entry) => entry.status === 200)!;
      const loser = both.find((entry) => entry.status === 409)!;
      expect(winner.body.status).toBe('completed');
      expect(loser.body.error.code).toBe('action_not_pending');
      expect(loser.body.error.details.resolution.votes).toHaveLength(2);
      expect(loser.body.error.details.resolution.votes[0].by).toBe('bob');

      const events = (await call(b.url, 'GET', `/api/conversations/${id}/events`, undefined, 'ada')).body
        .events as Array<{ type: string }>;
      expect(events.filter((event) => event.type === 'action.voted')).toHaveLength(2);
      expect(events.filter((event) => event.type === 'turn.started')).toHaveLength(2);
      expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
    }
    expect(runs()).toHaveLength(5);
  }, 60_000);
});
