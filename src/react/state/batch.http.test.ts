import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { createClient } from '../../client/index.js';
import { batchOutcome, planBatch } from './batch.js';

/**
 * What the inboxes' Approve all / Deny all send and how they read each result, against a real server
 * whose clock the test moves: settled, lapsed meanwhile (410), refused (404 for one the caller may not
 * answer), and which kinds are left out of the batch, with why.
 */

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('planBatch and batchOutcome', () => {
  it('reads each answer of a batch as settled, lapsed or refused, in the order sent', async () => {
    let now = new Date('2026-03-01T09:00:00Z');
    server = await startServer({ now: () => now, hitl: { timeoutMinutes: 5 } });
    const api = server.api;
    async function asked(content: string, token = 'ada') {
      const { body } = await api('POST', '/api/conversations', { token, body: { agent: 'support' } });
      return (await api('POST', `/api/conversations/${body.id}/messages`, { token, body: { content } })).body
        .pendingActions[0].id as string;
    }
    await asked('refund please');
    await asked('ask me');
    now = new Date('2026-03-01T09:03:00Z');
    await asked('refund please');
    await asked('refund please', 'bob');
    const ada = createClient({ baseUrl: server.url, token: 'ada' });
    const bob = createClient({ baseUrl: server.url, token: 'bob' });
    const mine = (await ada.inbox()).actions;
    const theirs = (await bob.inbox()).actions;
    expect(mine.map((action) => action.kind)).toEqual(['approval', 'question', 'approval']);

    const plan = planBatch([...mine, ...theirs], 'approve');
    expect(plan.leftOut.map((entry) => entry.reason)).toEqual(['A question cannot be approved: open it to answer it.']);
    expect(plan.send.map((item) => item.runs)).toEqual([
      'issue_refund: orderId 42 · amount 5',
      'issue_refund: orderId 42 · amount 5',
      'issue_refund: orderId 42 · amount 5',
    ]);
    expect(plan.send.every((item) => !('remember' in item.answer))).toBe(true);

    // The first lapsed at 09:05; bob's is not ada's to answer.
    now = new Date('2026-03-01T09:06:00Z');
    const results = await ada.decide(plan.send.map((item) => ({ actionId: item.action.id, resolution: item.answer })));
    expect(results.map((result) => result.status)).toEqual([410, 200, 404]);
    expect(plan.send.map((item, index) => batchOutcome(item, results[index], 'ada'))).toMatchObject([
      { state: 'answered', text: 'Lapsed: nobody answered in time' },
      { state: 'settled', text: 'Settled: Allowed' },
      { state: 'refused', text: `Refused: There is no action ${theirs[0].id} you may answer.` },
    ]);
    expect(server.ran.get('issue_refund')).toBe(1);
  });
});
