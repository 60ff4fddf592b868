import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { pushService } from '../../test/notify/push-service.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from '../../test/pg.js';
import { postgresStore } from '../store/postgres/postgres-store.js';

let database: TestDatabase | undefined;

describe.skipIf(!pgServer)(
  `Web Push from two instances on one PostgreSQL database${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('each request and each outcome is pushed once between them, signed with one key', async () => {
      const service = await pushService();
      const servers: TestServer[] = [];
      const reader = postgresStore({ connectionString: database!.url, schema: 'push_two', max: 1 });
      for (let i = 0; i < 2; i++)
        servers.push(
          await startServer({
            store: postgresStore({ connectionString: database!.url, schema: 'push_two', max: 4 }),
            notify: {
              publicUrl: 'https://heed.example.com',
              push: { subject: 'mailto:ops@example.com', allowEndpoints: [service.hostPort] },
              pollIntervalMs: 10,
              retry: { firstDelayMs: 50 },
            },
          }),
        );
      try {
        // Subscribed through one instance; the key the other hands out is the same one.
        const keys = await Promise.all(servers.map(async (server) => (await server.api('GET', '/api/push/key')).body));
        expect(keys[0].publicKey).toBe(keys[1].publicKey);
        await servers[1].api('POST', '/api/me/push-subscriptions', { token: 'ada', body: service.subscribe('phone') });

        // Ten approvals, raised on either instance and answered on the other.
        const asked = await Promise.all(
          Array.from({ length: 10 }, async (_, n) => {
            const server = servers[n % 2];
            const created = await server.api('POST', '/api/conversations', {
              token: 'ada',
              body: { agent: 'support' },
            });
            const sent = await server.api('POST', `/api/conversations/${created.body.id}/messages`, {
              token: 'ada',
              body: { content: 'refund please' },
            });
            return { conversationId: created.body.id as string, actionId: sent.body.pendingActions[0].id as string, n };
          }),
        );
        await expect.poll(() => service.received.length, { timeout: 20_000 }).toBe(10);
        await Promise.all(
          asked.map(({ conversationId, actionId, n }) =>
            servers[(n + 1) % 2].api('POST', `/api/conversations/${conversationId}/actions/${actionId}`, {
              token: 'ada',
              body: { resolution: { type: 'approval', decision: 'deny' } },
            }),
          ),
        );
        // A delivery is marked delivered after its push: once all 20 are, every push made has arrived, and a
        // second claim of one would show as a second attempt.
        await expect
          .poll(async () => (await reader.listDeliveries({ status: 'delivered', limit: 100 })).length, {
            timeout: 20_000,
          })
          .toBe(20);
        const delivered = await reader.listDeliveries({ status: 'delivered', limit: 100 });
        expect(delivered.every((delivery) => delivery.target.type === 'push' && delivery.attempts === 1)).toBe(true);
        expect(service.problems).toEqual([]);
        expect(service.received).toHaveLength(20);
        for (const { actionId } of asked) {
          const pushes = service.received.filter((push) => push.payload.tag === actionId);
          expect(pushes.map((push) => Boolean(push.payload.settled))).toEqual([false, true]);
        }
        expect(new Set(service.received.map((push) => push.vapidKey))).toEqual(new Set([keys[0].publicKey]));
      } finally {
        await Promise.all(servers.map((server) => server.close()));
        await service.close();
        await reader.close();
      }
    }, 60_000);
  },
);
