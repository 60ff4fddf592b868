import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, dataPart, send as a2aSend, statusData, TaskState, textPart, userMessage } from './a2a-fixtures.js';
import { aguiAgent, run, say, type RunSeen } from './ag-ui-fixtures.js';
import { startServer, type TestServer } from './http-fixtures.js';
import { mailCapture, type CapturedMail } from '../src/notify/mail-capture.js';

/**
 * One pause, five surfaces answering it at the same moment (docs/guarantees.md): the AG-UI client resuming
 * its run, the A2A client answering its task, the answer page through the mailed link, the console's action
 * route and the inbox's batch decisions. The pause is asked for through AG-UI or A2A, by turns. Whatever the race's order, the request is settled once, the tool runs at most once (once when
 * the winner allowed it), one `action.resolved` is recorded, and every loser is told the stored answer.
 */

let server: TestServer;
let dir: string;
const mails: CapturedMail[] = [];
const refunds = () => server.ran.get('issue_refund') ?? 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'heed-one-winner-'));
  server = await startServer({
    notify: {
      pollIntervalMs: 20,
      retry: { firstDelayMs: 50, maxDelayMs: 200 },
      email: {
        transport: mailCapture({ dir, onMail: (mail) => mails.push(mail) }),
        from: 'heed@example.com',
        to: () => 'grace@example.com',
      },
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean): Promise<void> {
  await expect.poll(check).toBe(true);
}

const SURFACES = ['ag-ui', 'a2a', 'link', 'console', 'batch'] as const;
type Surface = (typeof SURFACES)[number];
type Answered = Awaited<ReturnType<TestServer['api']>>;

describe('the same approval answered from five surfaces at once', () => {
  it('settles once, runs the tool at most once, and tells every other surface the stored answer', async () => {
    const winners = new Set<Surface>();
    for (let round = 0; round < 10; round++) {
      const before = { refunds: refunds(), mails: mails.length };
      // The pause is asked for through AG-UI in even rounds, through A2A in odd ones; both clients then answer it.
      const a2a = await a2aClient(server, { token: 'ada' });
      let agent = aguiAgent(server, { token: 'ada' });
      let conversationId: string;
      let actionId: string;
      let taskId: string;
      if (round % 2 === 0) {
        const paused = await say(agent, 'refund');
        const [interrupt] = paused.interrupts;
        expect(interrupt).toBeDefined();
        conversationId = agent.threadId;
        actionId = interrupt.id;
        // The turn is an A2A task too: `<conversation id>.<the user message's id>` (docs/a2a.md).
        const snapshot = await server.api('GET', `/api/conversations/${conversationId}`, { token: 'ada' });
        const asked = (snapshot.body.messages as Array<{ id: string; role: string }>).filter((m) => m.role === 'user');
        taskId = `${conversationId}.${asked.at(-1)!.id}`;
      } else {
        const task = await a2aSend(a2a, userMessage([textPart('refund')]));
        expect(task.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
        conversationId = task.contextId;
        actionId = String(statusData(task)[0].actionId);
        taskId = task.id;
        // An AG-UI client on the same thread: it holds no interrupts of its own and resumes the one it is told of.
        agent = aguiAgent(server, { token: 'ada', threadId: conversationId });
      }
      await until(() => mails.length > before.mails);
      const token = mails.at(-1)!.page!.split('/a/')[1];
      // Each surface gives its own decision, so the stored answer names the winner.
      const allow = Math.floor(round / 2) % 2 === 0;
      const comment = (surface: Surface) => `${surface} ${allow ? 'allows' : 'denies'}`;
      const resolution = (surface: Surface) => ({
        type: 'approval',
        decision: allow ? 'allow' : 'deny',
        comment: comment(surface),
      });
      const send: Record<Surface, () => Promise<unknown>> = {
        'ag-ui': () =>
          run(agent, {
            resume: [
              {
                interruptId: actionId,
                status: 'resolved',
                payload: { decision: allow ? 'allow' : 'deny', comment: comment('ag-ui') },
              },
            ],
          }),
        a2a: () =>
          a2aSend(
            a2a,
            userMessage([dataPart({ decision: allow ? 'allow' : 'deny', comment: comment('a2a') }, { actionId })], {
              taskId,
            }),
          ).catch((error: unknown) => error),
        link: () => server.api('POST', `/api/links/${token}`, { body: { resolution: resolution('link') } }),
        console: () =>
          server.api('POST', `/api/conversations/${conversationId}/actions/${actionId}`, {
            token: 'ada',
            body: { resolution: resolution('console') },
          }),
        batch: () =>
          server.api('POST', '/api/inbox/decisions', {
            token: 'ada',
            body: { decisions: [{ actionId, resolution: resolution('batch') }] },
          }),
      };
      // Each round another surface leads by a turn of the event loop, so over the rounds each gets its chance.
      const lead = SURFACES[round % SURFACES.length];
      const leading = send[lead]();
      await new Promise((resolve) => setImmediate(resolve));
      const sent = Object.fromEntries(
        await Promise.all(
          SURFACES.map(async (surface) => [surface, await (surface === lead ? leading : send[surface]())] as const),
        ),
      );
      const agUi = sent['ag-ui'] as RunSeen;
      const viaA2a = sent.a2a as { status?: { state?: number } } & {
        data?: Array<{ metadata?: { code?: string } }>;
        message?: string;
      };
      const [link, fromConsole, batch] = [sent.link, sent.console, sent.batch] as Answered[];

      const actions = await server.api('GET', `/api/conversations/${conversationId}/actions`, { token: 'ada' });
      const stored = actions.body.actions.find((action: { id: string }) => action.id === actionId);
      expect(stored.status).toBe('resolved');
      const winner = (stored.resolution.comment as string).split(' ')[0] as Surface;
      winners.add(winner);

      // The winner got its success; each loser the stored answer.
      const outcome: Record<Surface, { won: boolean; toldStored: boolean }> = {
        'ag-ui': {
          won: agUi.error === undefined && agUi.thrown === undefined,
          toldStored: agUi.error?.code === 'action_not_pending' && agUi.error.message.includes('already answered'),
        },
        a2a: {
          won: viaA2a.status?.state === TaskState.TASK_STATE_COMPLETED,
          toldStored:
            viaA2a.data?.[0]?.metadata?.code === 'action_not_pending' &&
            Boolean(viaA2a.message?.includes('already answered')),
        },
        link: {
          won: link.status === 200,
          toldStored: link.status === 409 && link.body.error.code === 'action_not_pending',
        },
        console: {
          won: fromConsole.status === 200,
          toldStored:
            fromConsole.status === 409 &&
            fromConsole.body.error.details.resolution.comment === stored.resolution.comment,
        },
        batch: {
          won: batch.status === 200 && batch.body.results[0].status === 200,
          toldStored:
            batch.status === 200 &&
            batch.body.results[0].status === 409 &&
            batch.body.results[0].body.error.details.resolution.comment === stored.resolution.comment,
        },
      };
      for (const surface of Object.keys(outcome) as Surface[]) {
        expect(outcome[surface], `${surface} in round ${round} (winner ${winner})`).toEqual(
          surface === winner ? { won: true, toldStored: false } : { won: false, toldStored: true },
        );
      }
      await until(() => refunds() === before.refunds + (allow ? 1 : 0));

      // One answer in the record, and the turn went on once.
      const events = await server.api('GET', `/api/conversations/${conversationId}/events`, { token: 'ada' });
      const resolved = events.body.events.filter(
        (event: { type: string; data?: { actionId?: string } }) =>
          event.type === 'action.resolved' && event.data?.actionId === actionId,
      );
      expect(resolved).toHaveLength(1);
    }
    // Which surface wins is the race's own; each outcome is checked above.
    expect(winners.size).toBeGreaterThan(0);
    // Rounds 0, 1, 4, 5, 8 and 9 allowed.
    expect(refunds()).toBe(6);
  });
});
