import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from 'heed';
import { engineOf } from '../src/heed.js';
import { startServer, type TestServer } from './http-fixtures.js';
import { eventually, webhookReceiver } from './notify/receivers.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';

/*
 * Reminders (docs/approvals.md, Reminders and extensions) from two instances on one PostgreSQL database,
 * over real HTTP, on one fake clock: both sweep at every time, and each reminder is still sent once; an
 * extension made on one instance is kept to by the sweep of the other.
 */

const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
const t0 = Date.parse('2026-03-02T09:00:00.000Z');
const minute = 60_000;
let database: TestDatabase | undefined;

describe.skipIf(!pgServer)(
  `reminders from two instances on one PostgreSQL database${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('each reminder is sent once between them, at its time; an extension on one moves the other sweep too', async () => {
      const receiver = await webhookReceiver();
      const clock = { now: t0 };
      const servers: TestServer[] = [];
      for (let i = 0; i < 2; i++) {
        servers.push(
          await startServer({
            store: postgresStore({ connectionString: database!.url, schema: 'reminders_two', max: 4 }),
            now: () => new Date(clock.now),
            hitl: { timeoutMinutes: 120, remind: { beforeMinutes: [60, 10] }, maxExtendMinutes: 600 },
            notify: { webhooks: [{ url: receiver.url, secret }], pollIntervalMs: 10, retry: { firstDelayMs: 50 } },
          }),
        );
      }
      try {
        // Ten pauses, half raised on each instance.
        const pauses = await Promise.all(
          Array.from({ length: 10 }, async (_, n) => {
            const api = servers[n % 2].api;
            const created = await api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } });
            const turn = await api('POST', `/api/conversations/${created.body.id}/messages`, {
              token: 'ada',
              body: { content: 'refund please' },
            });
            return { conversationId: created.body.id as string, actionId: turn.body.pendingActions[0].id as string };
          }),
        );
        // The last one is extended on the second instance: 300 minutes from minute 30.
        clock.now = t0 + 30 * minute;
        const { conversationId, actionId } = pauses[9];
        const extended = await servers[1].api(
          'POST',
          `/api/conversations/${conversationId}/actions/${actionId}/extend`,
          { token: 'ada', body: { minutes: 300 } },
        );
        expect(extended.status).toBe(200);

        const store = engineOf(servers[0].heed).store;
        // Each sweep's reminders are sent before the clock moves on (a reminder sent after its action lapsed is dropped).
        const drained = () =>
          eventually(async () => ((await store.listDeliveries({ status: 'pending' })).length === 0 ? true : undefined));
        const sweepBoth = async () => {
          const reports = await Promise.all([...servers, ...servers].map((server) => server.heed.expireDue()));
          await drained();
          return {
            reminded: reports.reduce((sum, report) => sum + report.reminded, 0),
            lapsed: reports.reduce((sum, report) => sum + report.lapsed, 0),
          };
        };
        clock.now = t0 + 60 * minute;
        expect(await sweepBoth()).toEqual({ reminded: 9, lapsed: 0 });
        clock.now = t0 + 110 * minute;
        expect(await sweepBoth()).toEqual({ reminded: 9, lapsed: 0 });
        clock.now = t0 + 120 * minute;
        expect(await sweepBoth()).toEqual({ reminded: 0, lapsed: 9 });
        // The extended one: reminders an hour and ten minutes before minute 330, then its lapse.
        clock.now = t0 + 270 * minute;
        expect(await sweepBoth()).toEqual({ reminded: 1, lapsed: 0 });
        clock.now = t0 + 320 * minute;
        expect(await sweepBoth()).toEqual({ reminded: 1, lapsed: 0 });
        clock.now = t0 + 330 * minute;
        expect(await sweepBoth()).toEqual({ reminded: 0, lapsed: 1 });

        const reminders = (await store.listDeliveries({ status: 'delivered', limit: 200 })).filter(
          (delivery) => delivery.event === 'action.reminder',
        );
        // Once each: two per action, each delivered in one attempt, each received once.
        expect(reminders).toHaveLength(20);
        expect(reminders.every((delivery) => delivery.attempts === 1)).toBe(true);
        const received = receiver.calls.filter((call) => JSON.parse(call.body).type === 'action.reminder');
        expect(received).toHaveLength(20);
        expect(new Set(received.map((call) => call.headers['webhook-id'])).size).toBe(20);
        const byAction = new Map<string, number>();
        for (const call of received) {
          const id = JSON.parse(call.body).data.action.id as string;
          byAction.set(id, (byAction.get(id) ?? 0) + 1);
        }
        expect([...byAction.values()]).toEqual(Array(10).fill(2));
      } finally {
        for (const server of servers) await server.close();
        await receiver.close();
      }
    }, 60_000);
  },
);
