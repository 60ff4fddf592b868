import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHeed, postgresStore, type Heed } from 'heed';
import { scriptedModel } from 'heed/testing';
import { engineOf } from '../src/heed.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';

// Requests from anywhere on two Heed instances sharing one PostgreSQL database, as two server processes:
// a wait on one returns when the other records the answer, and one idempotency key gives one request.

let database: TestDatabase | undefined;
let schemas = 0;
const opened: Heed[] = [];

function twoInstances() {
  const schema = `requests_${++schemas}`;
  const make = () => {
    const store = postgresStore({ connectionString: database!.url, schema, max: 4 });
    const heed = createHeed({
      agents: [{ name: 'support', model: scriptedModel(() => ({ text: 'Hello.' })) }],
      store,
      sweepIntervalMs: 0,
    });
    opened.push(heed);
    return heed;
  };
  return { a: make(), b: make() };
}

const ada = { userId: 'ada' };
const bob = { userId: 'bob' };

describe.skipIf(!pgServer)(
  `requests on two instances of one PostgreSQL database${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((heed) => heed.close()));
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('a wait on one instance returns when the answer is recorded on the other', async () => {
      const { a, b } = twoInstances();
      await Promise.all([a.ready(), b.ready()]);
      const { action } = await a.requests.create({
        request: { kind: 'approval', title: 'Rotate the database password?' },
        assignees: ['bob'],
        caller: ada,
      });
      expect((await b.inbox({ caller: bob })).map((entry) => entry.id)).toEqual([action.id]);
      const started = Date.now();
      const waiting = a.requests.wait(action.id, { caller: ada, timeoutSeconds: 20 });
      // The wait is under way on A (it listens for the conversation's changes) before B answers.
      await expect.poll(() => engineOf(a).bus.listenerCount(action.conversationId)).toBeGreaterThan(0);
      const answered = await b
        .conversation(action.conversationId)
        .resolve(action.id, { type: 'approval', decision: 'allow' }, { caller: bob });
      expect(answered.status).toBe('completed');
      const waited = await waiting;
      expect(waited).toMatchObject({ settled: true, action: { status: 'resolved', resolvedBy: 'bob' } });
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('one idempotency key sent to both instances at once gives one request', async () => {
      const { a, b } = twoInstances();
      await Promise.all([a.ready(), b.ready()]);
      const input = {
        request: {
          kind: 'question' as const,
          questions: [{ id: 'ok', prompt: 'Ship it?', options: [{ label: 'yes' }] }],
        },
        idempotencyKey: 'ship-7',
        caller: ada,
      };
      const made = await Promise.all([a.requests.create(input), b.requests.create(input)]);
      expect(made.map((entry) => entry.created).sort()).toEqual([false, true]);
      expect(made[0].action.id).toBe(made[1].action.id);
      expect(await a.listConversations({ caller: ada })).toHaveLength(1);
    });
  },
);
