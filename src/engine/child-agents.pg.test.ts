import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { postgresStore } from '../store/postgres/postgres-store.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from '../../test/pg.js';
import { leadOpsApi, stoppableLeadOps } from '../../test/fixtures/lead-ops.js';
import type { AgentConfig } from '../config.js';

/**
 * Agents that call agents on two instances sharing one PostgreSQL database: an instance that stops mid-way
 * (its step never returns, its lease lapses) is taken over by the other; answers through either instance and
 * either conversation have one winner.
 */

let database: TestDatabase | undefined;

const servers: TestServer[] = [];
const { agents, releaseAll } = stoppableLeadOps();
afterEach(async () => {
  releaseAll();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function instance(list: AgentConfig[], later = false): Promise<TestServer> {
  const server = await startServer({
    agents: list,
    store: postgresStore({ connectionString: database!.url, schema: 'children', max: 4 }),
    // A later process reads the clock an hour on: the first one's leases have lapsed.
    ...(later ? { now: () => new Date(Date.now() + 3_600_000) } : {}),
  });
  servers.push(server);
  return server;
}

const { get, types, allow, lead } = leadOpsApi;

describe.skipIf(!pgServer)(
  `agents that call agents on two instances of one PostgreSQL database${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterAll(async () => {
      await database?.drop();
    });

    it("an instance that stops in the child's turn after the answer: the other finishes the child, then the parent, once", async () => {
      const restarts: string[] = [];
      const a = await instance(agents(restarts, 'ops-after-answer'));
      const id = await lead(a);
      const sent = await a.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'go' } });
      const [pending] = sent.body.pendingActions;
      void allow(a, id, pending.id);
      await expect.poll(() => restarts.length).toBe(1);
      // Stopped in the model call after the tool's result: that result is stored (the step flushes it first), so
      // the other process starts from it rather than from a call whose result is still on its way to the store.
      await expect
        .poll(async () =>
          (await get(a, pending.conversationId)).messages.some((m: { role: string }) => m.role === 'tool'),
        )
        .toBe(true);

      const b = await instance(agents(restarts), true);
      await b.heed.expireDue();
      await expect.poll(async () => (await get(b, id)).conversation.status).toBe('idle');
      expect(restarts).toEqual(['web']);
      expect((await get(a, id)).messages.at(-1).parts[0].text).toBe('Done: Restarted web.');
      const log = await types(a, id);
      expect(log.filter((type) => type === 'child.completed')).toHaveLength(1);
      expect(log.filter((type) => type === 'turn.completed')).toHaveLength(1);
    });

    it('answers through the parent on one instance and through the child on the other: one winner, one continuation', async () => {
      const restarts: string[] = [];
      const a = await instance(agents(restarts));
      const b = await instance(agents(restarts));
      const id = await lead(a);
      const sent = await a.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'go' } });
      const [pending] = sent.body.pendingActions;
      const both = await Promise.all([allow(a, id, pending.id), allow(b, pending.conversationId, pending.id)]);
      expect(both.map((reply) => reply.status).sort()).toEqual([200, 409]);
      await expect.poll(async () => (await get(b, id)).conversation.status).toBe('idle');
      // Both instances sweep: neither goes on with the parent again.
      await Promise.all([a.heed.expireDue(), b.heed.expireDue()]);
      expect(restarts).toEqual(['web']);
      const log = await types(b, id);
      expect(log.filter((type) => type === 'child.completed')).toHaveLength(1);
      expect(log.filter((type) => type === 'turn.completed')).toHaveLength(1);
    });
  },
);
