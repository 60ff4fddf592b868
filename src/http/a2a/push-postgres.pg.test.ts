/**
 * A2A push notifications across two Heed servers (`serve`, in this process) on one PostgreSQL database, with the real
 * `@a2a-js/sdk` client over loopback: a task paused and given a push config on one instance, approved on the
 * other, has each of its state changes POSTed once (signed, with its token) although both instances' outboxes
 * poll the same deliveries, and the other instance's GetTask reads it completed.
 */
import { StreamResponse, type Task } from '@a2a-js/sdk';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, send, statusData, TaskState, textPart, userMessage } from '../../../test/a2a-fixtures.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { eventually, webhookReceiver, type WebhookCall } from '../../../test/notify/receivers.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from '../../../test/pg.js';
import { engineOf } from '../../heed.js';
import { postgresStore } from '../../store/postgres/postgres-store.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** Tasks, approved one after another: each is one more chance for the two outboxes to both send one state. */
const TASKS = 12;
let database: TestDatabase | undefined;

/** The task id and state a push carries. */
function pushed(call: WebhookCall): { taskId: string; state: TaskState | undefined } {
  const payload = StreamResponse.fromJSON(JSON.parse(call.body)).payload;
  if (payload?.$case !== 'statusUpdate') throw new Error(`not a status update: ${call.body}`);
  return { taskId: payload.value.taskId, state: payload.value.status?.state };
}

describe.skipIf(!pgServer)(
  `A2A push notifications from two instances on one PostgreSQL database${pgServer ? '' : ` (${pgSkipReason})`}`,
  () => {
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('a config set on one instance gets each state change once when the task is approved on the other', async () => {
      // A slow receiver: a task's POSTs are answered only once each of its deliveries has been taken by an
      // outbox, so its two deliveries are in flight at once (on the two instances, when each takes one).
      let answered = Promise.resolve(204);
      const receiver = await webhookReceiver(() => answered);
      const servers: TestServer[] = [];
      for (let i = 0; i < 2; i++) {
        servers.push(
          await startServer({
            store: postgresStore({ connectionString: database!.url, schema: 'a2a_push_two', max: 4 }),
            notify: {
              // Loopback is allowed only because the test lists it, as an operator would list a receiver.
              callbackHosts: [`127.0.0.1:${new URL(receiver.url).port}`],
              callbackSecret: secret,
              pollIntervalMs: 10,
              retry: { firstDelayMs: 50 },
            },
          }),
        );
      }
      const [first, second] = servers;
      const store = engineOf(first.heed).store;
      const deliveriesOf = async (task: Task) =>
        (await store.listDeliveries({ limit: 200 })).filter((delivery) => delivery.conversationId === task.contextId);
      try {
        const onFirst = await a2aClient(first, { token: 'ada' });
        const onSecond = await a2aClient(second, { token: 'ada' });
        const paused: Task[] = await Promise.all(
          Array.from({ length: TASKS }, async (_, n) => {
            const task = await send(onFirst, userMessage([textPart('refund 5')]));
            expect(task.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
            await onFirst.createTaskPushNotificationConfig({
              tenant: '',
              id: '',
              taskId: task.id,
              url: receiver.url,
              token: `tok-${n}`,
              authentication: undefined,
            });
            return task;
          }),
        );
        // One task at a time (a held POST holds its outbox's whole round), each decided on the other
        // instance through the HTTP route a person's answer takes.
        for (const task of paused) {
          let answer!: () => void;
          answered = new Promise<number>((resolve) => (answer = () => resolve(204)));
          const [pending] = statusData(task);
          const decided = await second.api(
            'POST',
            `/api/conversations/${task.contextId}/actions/${String(pending.actionId)}`,
            { token: 'ada', body: { resolution: { type: 'approval', decision: 'allow' } } },
          );
          expect(decided.status).toBe(200);
          await eventually(async () => {
            const state = (await onSecond.getTask({ tenant: '', id: task.id, historyLength: undefined })).status?.state;
            if (state !== TaskState.TASK_STATE_COMPLETED) return undefined;
            const taken = (await deliveriesOf(task)).every((delivery) => delivery.attempts > 0);
            return taken ? true : undefined;
          });
          answer();
          // Each delivery sent or dropped: no attempt is under way or due, so no POST is to come.
          await eventually(async () =>
            (await deliveriesOf(task)).every((delivery) => delivery.status !== 'pending') ? true : undefined,
          );
        }

        for (const [n, task] of paused.entries()) {
          const calls = receiver.calls.filter((call) => pushed(call).taskId === task.id);
          const states = calls.map((call) => pushed(call).state);
          // Sent as the task then stood: completed, and maybe working before it, each once. (The two
          // instances' POSTs are both held here, so which of them reaches the receiver first is not asserted.)
          expect(states, `task ${n} was sent ${states.join(', ')}`).toContain(TaskState.TASK_STATE_COMPLETED);
          expect(new Set(states).size, `task ${n} was sent ${states.join(', ')}`).toBe(states.length);
          for (const call of calls) {
            expect(call.headers['x-a2a-notification-token']).toBe(`tok-${n}`);
            new Webhook(secret).verify(call.body, {
              'webhook-id': String(call.headers['webhook-id']),
              'webhook-timestamp': String(call.headers['webhook-timestamp']),
              'webhook-signature': String(call.headers['webhook-signature']),
            });
          }
          expect((await onSecond.getTask({ tenant: '', id: task.id, historyLength: undefined })).status?.state).toBe(
            TaskState.TASK_STATE_COMPLETED,
          );
        }
        // One POST per delivery the store counts as delivered, each at its first attempt.
        const delivered = (await store.listDeliveries({ status: 'delivered', limit: 200 })).filter(
          (delivery) => delivery.target.type === 'a2a',
        );
        expect(receiver.calls).toHaveLength(delivered.length);
        expect(new Set(receiver.calls.map((call) => call.headers['webhook-id'])).size).toBe(delivered.length);
        expect(delivered.every((delivery) => delivery.attempts === 1)).toBe(true);
        expect((first.ran.get('issue_refund') ?? 0) + (second.ran.get('issue_refund') ?? 0)).toBe(TASKS);
      } finally {
        for (const server of servers) await server.close();
        await receiver.close();
      }
    }, 30_000);
  },
);
