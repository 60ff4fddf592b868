import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';
import { fixtureConfig } from './cli.js';
import { call, killAll, startServe, type ServeProcess } from './serve-process.js';

/**
 * Agents that call agents on two real `heed serve` processes sharing one PostgreSQL database: the lead agent
 * calls the ops agent, whose tool needs approval; the answer goes through the lead's conversation to one
 * process, which is killed (SIGKILL) in the child's turn. The other takes the child over once its lease
 * lapses, then goes on with the parent: the side effect happens once, the parent continues once.
 */

const dir = mkdtempSync(join(tmpdir(), 'heed-children-'));
const log = join(dir, 'tool.log');

const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
/** The log's lines of one kind, each as [pid, key?], after the `from`-th line. */
const logged = (kind: string, from: number) =>
  lines()
    .slice(from)
    .map((line) => line.split(' '))
    .filter(([what]) => what === kind)
    .map(([, ...rest]) => rest);

let database: TestDatabase | undefined;
const processes: ServeProcess[] = [];

function start(env: Record<string, string>) {
  return startServe(['--config', fixtureConfig('child-agents.config.ts'), '--database-url', database!.url], {
    HEED_TEST_TOOL_LOG: log,
    ...env,
  }).then((process) => (processes.push(process), process));
}

const eventTypes = async (url: string, id: string) =>
  ((await call(url, 'GET', `/api/conversations/${id}/events`)).body.events as Array<{ type: string }>).map(
    (event) => event.type,
  );
const count = (types: string[], type: string) => types.filter((each) => each === type).length;

/** Starts the lead on `url` and returns the parent's id and the child's pending request, as the parent lists it. */
async function paused(url: string) {
  const { id } = (await call(url, 'POST', '/api/conversations', { agent: 'lead' })).body;
  const sent = await call(url, 'POST', `/api/conversations/${id}/messages`, { content: 'Restart web, please.' });
  expect(sent.body.status).toBe('requires_action');
  const [pending] = sent.body.pendingActions;
  expect(pending.via).toEqual([{ conversationId: pending.conversationId, agent: 'ops' }]);
  expect(pending.conversationId).not.toBe(id);
  return { id: id as string, actionId: pending.id as string, childId: pending.conversationId as string };
}

/**
 * Answers the child's request through the parent on `a`, kills `a` once `killWhen` holds, and waits for `b`.
 * `answered`: the answer's reply came before the kill (it comes once the child's turn ends; the parent goes
 * on after it).
 */
async function killMidway(a: ServeProcess, b: ServeProcess, killWhen: () => boolean, answered = false) {
  const { id, actionId, childId } = await paused(a.url);
  const lost = call(a.url, 'POST', `/api/conversations/${id}/actions/${actionId}`, {
    resolution: { type: 'approval', decision: 'allow' },
  })
    .then((reply) => reply.status)
    .catch(() => 'connection lost');
  await expect.poll(killWhen, { timeout: 10_000 }).toBe(true);
  expect(await a.stop('SIGKILL')).toBe('SIGKILL');
  expect(await lost).toBe(answered ? 200 : 'connection lost');

  // B sweeps: once A's lease lapses it finishes the child's turn, then the parent's.
  await expect
    .poll(async () => (await call(b.url, 'GET', `/api/conversations/${id}`)).body.runtime.status, { timeout: 15_000 })
    .toBe('idle');
  const parent = (await call(b.url, 'GET', `/api/conversations/${id}`)).body;
  expect(parent.conversation.status).toBe('idle');
  expect(parent.messages.at(-1).parts[0].text).toBe('Done: Restarted web.');
  const [action] = (await call(b.url, 'GET', `/api/conversations/${childId}/actions`)).body.actions;
  expect(action).toMatchObject({ id: actionId, status: 'resolved', resolvedBy: 'ada' });

  const parentEvents = await eventTypes(b.url, id);
  expect(count(parentEvents, 'child.completed')).toBe(1);
  expect(count(parentEvents, 'turn.completed')).toBe(1);
  const childEvents = await eventTypes(b.url, childId);
  expect(count(childEvents, 'action.resolved')).toBe(1);
  expect(count(childEvents, 'turn.completed')).toBe(1);
  return { id, childId };
}

describe.skipIf(!pgServer)(
  `agents that call agents on two heed serve processes, one killed mid-way${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterEach(async () => {
      await Promise.all(processes.splice(0).map((process) => process.stop('SIGKILL')));
    });
    afterAll(async () => {
      killAll();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("killed in the child's tool, after its side effect: the other runs the same call again, the effect stays once", async () => {
      const env = { HEED_TEST_TOOL_MS: '1500' };
      const [a, b] = await Promise.all([start(env), start(env)]);
      const from = lines().length;
      await killMidway(a, b, () => logged('effect', from).length === 1);

      // A started the call and did the effect; B ran the same call (same key) again, which found it done.
      const starts = logged('start', from);
      expect(starts.map(([, pid]) => Number(pid))).toEqual([a.pid, b.pid]);
      expect(new Set(starts.map(([key]) => key)).size).toBe(1);
      expect(logged('effect', from)).toEqual([[starts[0][0], String(a.pid)]]);
      expect(logged('model', from).map(([pid]) => Number(pid))).toEqual([b.pid]);
    }, 40_000);

    it("killed in the child's step after its tool result: the tool ran once, the other finishes the child and the parent", async () => {
      const env = { HEED_TEST_MODEL_MS: '1500' };
      const [a, b] = await Promise.all([start(env), start(env)]);
      const from = lines().length;
      await killMidway(a, b, () => logged('model', from).length === 1);

      expect(logged('start', from).map(([, pid]) => Number(pid))).toEqual([a.pid]);
      expect(logged('effect', from).map(([, pid]) => Number(pid))).toEqual([a.pid]);
      expect(logged('model', from).map(([pid]) => Number(pid))).toEqual([a.pid, b.pid]);
    }, 40_000);

    it("killed in the parent's step after the child's reply: the other goes on with the parent, the child is not run again", async () => {
      const env = { HEED_TEST_LEAD_MS: '1500' };
      const [a, b] = await Promise.all([start(env), start(env)]);
      const from = lines().length;
      await killMidway(a, b, () => logged('lead', from).length === 1, true);

      expect(logged('start', from).map(([, pid]) => Number(pid))).toEqual([a.pid]);
      expect(logged('model', from).map(([pid]) => Number(pid))).toEqual([a.pid]);
      expect(logged('lead', from).map(([pid]) => Number(pid))).toEqual([a.pid, b.pid]);
    }, 40_000);
  },
);
