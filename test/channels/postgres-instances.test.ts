import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { startServer, type TestServer } from '../http-fixtures.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from '../pg.js';
import { channelAgent } from './channel-agent.js';
import { deliver, platformFake, type PlatformFake, type PlatformName } from './platforms.js';

/**
 * Two Heed servers on one PostgreSQL database, each with its own store (its own pool), as two processes
 * behind a balancer would have, both receiving one Chat SDK platform's webhooks (docs/channels.md): a
 * mention to either has its approval posted once, and a click delivered to both at once settles once, runs the
 * tool once, edits the card once and posts the reply once. Both servers' deliverers poll the one outbox.
 */

let database: TestDatabase | undefined;
const running: TestServer[] = [];
const fakes: PlatformFake[] = [];

/** The outbox holds nothing left to send: every post was sent (by one of the two) and is counted. */
async function outboxDone(store: Store) {
  for (let waited = 0; ; waited += 50) {
    const deliveries = await store.listDeliveries({});
    if (deliveries.length > 0 && deliveries.every((delivery) => delivery.status === 'delivered')) return deliveries;
    if (waited > 20_000) throw new Error(`The outbox still holds ${JSON.stringify(deliveries, null, 1)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!pgServer)(
  `two instances on PostgreSQL, one chat platform${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterEach(async () => {
      await Promise.all(running.splice(0).map((server) => server.close()));
      await Promise.all(fakes.splice(0).map((fake) => fake.close()));
    });
    afterAll(async () => {
      await database?.drop();
    });

    it.each<PlatformName>(['telegram', 'github', 'linear', 'discord', 'teams', 'gchat'])(
      '%s: the approval of a mention is posted once; the same click delivered to both at once settles once, the tool runs once, the card is edited once, the reply posted once',
      async (name) => {
        const fake = await platformFake(name);
        fakes.push(fake);
        const ran = new Map<string, number>();
        const instance = async () => {
          const server = await startServer({
            agents: [channelAgent(ran)],
            store: postgresStore({ connectionString: database!.url, schema: `channels_${name}`, max: 4 }),
            channels: { [name]: { ...fake.config, agent: 'support' } },
            notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
          });
          running.push(server);
          return server;
        };
        // One after the other: the first migrates the schema.
        const a = await instance();
        const b = await instance();
        const store = a.heed.store!;

        expect((await deliver(a.url, name, fake.mention())).status).toBe(200);
        await fake.api.until(() => fake.requests().length > 0, 20_000);
        await outboxDone(store);
        expect(fake.requests()).toHaveLength(1);

        // The platform delivers one click to both (a retry landing on the other instance, say).
        const approve = fake.approve(fake.requests()[0]);
        const answered = await Promise.all([deliver(a.url, name, approve), deliver(b.url, name, approve)]);
        expect(answered.map((response) => response.status)).toEqual([200, 200]);
        await fake.api.until(() => fake.posted('Done.').length > 0 && fake.edits().length > 0, 20_000);
        const deliveries = await outboxDone(store);

        expect(ran.get('issue_refund')).toBe(1);
        expect(fake.requests()).toHaveLength(1);
        expect(fake.posted('Done.')).toHaveLength(1);
        expect(fake.edits()).toHaveLength(1);
        expect(fake.edits()[0]).toContain('Allowed by @bob');
        // One of each post in the outbox: the request, its edit, the reply.
        expect(deliveries.map((delivery) => delivery.event).sort()).toEqual([
          'action.required',
          'action.resolved',
          'message.created',
        ]);
        const [conversation] = await a.heed.listConversations({});
        const snapshot = await b.heed.conversation(conversation.id).get();
        expect(snapshot.messages.filter((message) => message.role === 'user')).toHaveLength(1);
        expect(snapshot.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
        const [action] = await a.heed.conversation(conversation.id).actions();
        expect(action).toMatchObject({ status: 'resolved', channel: name });
      },
      60_000,
    );
  },
);
