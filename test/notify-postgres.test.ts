import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeed, postgresStore, type Heed } from 'heed';
import { refundAgent } from './kit.js';
import { engineOf } from '../src/heed.js';
import { webhookReceiver } from './notify/receivers.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';

const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
let database: TestDatabase | undefined;

describe.skipIf(!pgServer)(
  `notifications from two instances on one PostgreSQL database${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('each delivery is sent once between them (claimed with FOR UPDATE SKIP LOCKED)', async () => {
      const receiver = await webhookReceiver();
      const instances: Heed[] = [];
      for (let i = 0; i < 2; i++) {
        instances.push(
          createHeed({
            agents: [refundAgent().agent],
            store: postgresStore({ connectionString: database!.url, schema: 'notify_two', max: 4 }),
            sweepIntervalMs: 0,
            notify: { webhooks: [{ url: receiver.url, secret }], pollIntervalMs: 10, retry: { firstDelayMs: 50 } },
          }),
        );
      }
      await Promise.all(instances.map((heed) => heed.ready()));
      // Twenty pauses, half raised on each instance, answered on the other: 40 deliveries in all.
      const pauses = await Promise.all(
        Array.from({ length: 20 }, async (_, n) => {
          const heed = instances[n % 2];
          const conversation = await heed.createConversation({ agent: 'support', ownerId: 'ada' });
          await heed.conversation(conversation.id).send('refund 42');
          return conversation.id;
        }),
      );
      await Promise.all(
        pauses.map(async (id, n) => {
          const [pending] = await instances[(n + 1) % 2].conversation(id).pendingActions();
          await pending.approve();
        }),
      );
      // A delivery is marked delivered after its POST: once all 40 are, every POST made has arrived, and a
      // second claim of one would show as a second attempt.
      const store = engineOf(instances[0]).store;
      await expect.poll(async () => (await store.listDeliveries({ status: 'delivered', limit: 100 })).length).toBe(40);
      const delivered = await store.listDeliveries({ status: 'delivered', limit: 100 });
      expect(delivered.every((delivery) => delivery.attempts === 1)).toBe(true);
      const calls = receiver.calls;
      expect(calls).toHaveLength(40);
      expect(new Set(calls.map((call) => call.headers['webhook-id'])).size).toBe(40);
      const types = calls.map((call) => JSON.parse(call.body).type as string);
      expect(types.filter((type) => type === 'action.required')).toHaveLength(20);
      expect(types.filter((type) => type === 'action.resolved')).toHaveLength(20);
      await Promise.all(instances.map((heed) => heed.close()));
      await receiver.close();
    }, 60_000);
  },
);
