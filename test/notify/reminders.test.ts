import { afterEach, describe, expect, it } from 'vitest';
import { startServer, supportAgent, type TestServer } from '../http-fixtures.js';
import { eventually, smtpReceiver, webhookReceiver, type WebhookCall } from './receivers.js';
import { engineOf } from '../../src/heed.js';
import type { HeedConfig } from '../../src/config.js';

/*
 * Reminders before a request lapses and extensions of its deadline (docs/approvals.md, Reminders and
 * extensions), over real HTTP, a real webhook receiver and a real SMTP server, on a fake clock: the sweep
 * is run by hand at the times the test picks.
 */

const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
const t0 = Date.parse('2026-03-02T09:00:00.000Z');
const minute = 60_000;
const at = (minutes: number) => new Date(t0 + minutes * minute).toISOString();

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function remindingServer(extra: Partial<HeedConfig> = {}, answer?: (n: number) => number) {
  const clock = { now: t0 };
  const receiver = await webhookReceiver(answer);
  cleanup.push(receiver.close);
  const smtp = await smtpReceiver();
  cleanup.push(smtp.close);
  const server = await startServer({
    now: () => new Date(clock.now),
    hitl: { timeoutMinutes: 120, remind: { beforeMinutes: [60, 10] }, maxExtendMinutes: 240 },
    notify: {
      webhooks: [{ url: receiver.url, secret }],
      email: { transport: smtp.transport, from: 'Heed <heed@example.com>', to: () => 'ada@example.com' },
      pollIntervalMs: 20,
      retry: { firstDelayMs: 50, maxDelayMs: 200 },
    },
    ...extra,
  });
  cleanup.push(server.close);
  return { server, receiver, smtp, clock };
}

async function pausedOnRefund(server: TestServer) {
  const created = await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } });
  const turn = await server.api('POST', `/api/conversations/${created.body.id}/messages`, {
    token: 'ada',
    body: { content: 'refund please' },
  });
  expect(turn.body.status).toBe('requires_action');
  return { conversationId: created.body.id as string, actionId: turn.body.pendingActions[0].id as string };
}

const typeOf = (call: WebhookCall) => JSON.parse(call.body).type as string;
const reminderCalls = (calls: WebhookCall[]) => calls.filter((call) => typeOf(call) === 'action.reminder');

async function eventsOf(server: TestServer, conversationId: string) {
  const read = await server.api('GET', `/api/conversations/${conversationId}/events`, { token: 'ada' });
  return read.body.events as Array<{ type: string; at: string; data: Record<string, unknown> }>;
}

/** The `data:` of the first event of type `type` on the conversation's live SSE stream (from now on). */
async function streamUntil(server: TestServer, conversationId: string, type: string): Promise<string> {
  const { lastEventSeq } = (await server.api('GET', `/api/conversations/${conversationId}`, { token: 'ada' })).body
    .conversation;
  const stop = new AbortController();
  const response = await fetch(
    `${server.url}/api/conversations/${conversationId}/events/stream?after=${lastEventSeq}`,
    { headers: { authorization: 'Bearer ada', accept: 'text/event-stream' }, signal: stop.signal },
  );
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before ${type}`);
      text += value;
      const found = text.split('\n\n').find((block) => block.includes(`event: ${type}\n`));
      if (found)
        return found
          .split('\n')
          .find((line) => line.startsWith('data: '))!
          .slice(6);
    }
  } finally {
    stop.abort();
  }
}

/** Every delivery of the outbox has been sent (or dropped): nothing is left to arrive. */
async function outboxSettled(server: TestServer) {
  const store = engineOf(server.heed).store;
  await eventually(async () => ((await store.listDeliveries({ status: 'pending' })).length === 0 ? true : undefined));
  return store.listDeliveries({ limit: 100 });
}

describe('reminders before a request lapses', () => {
  it('sends each reminder once, at its time, by webhook and mail, saying it is a reminder and when it lapses', async () => {
    const { server, receiver, smtp, clock } = await remindingServer();
    const { conversationId, actionId } = await pausedOnRefund(server);
    await receiver.until((calls) => calls.length === 1);
    await smtp.until(() => smtp.mails.length === 1);

    // A minute before the first reminder: nothing.
    clock.now = t0 + 59 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(0);
    // An hour before the deadline: one reminder; a second sweep at the same time sends none.
    clock.now = t0 + 60 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(1);
    expect((await server.heed.expireDue()).reminded).toBe(0);
    const [first] = reminderCalls(await receiver.until((calls) => reminderCalls(calls).length === 1));
    const body = JSON.parse(first.body);
    expect(body.data.action).toMatchObject({ id: actionId, status: 'pending', expiresAt: at(120) });
    expect(body.data.links.page).toMatch(/\/a\/[\w-]+$/);
    await smtp.until(() => smtp.mails.length === 2);
    const mail = smtp.mails[1];
    expect(mail.subject).toBe('[support] Reminder: Approve? Run issue_refund?');
    const when = new Date(at(120)).toUTCString();
    expect(mail.text).toContain(
      `Reminder: this request still waits for an answer and lapses ${when} if nobody answers.`,
    );
    expect(String(mail.html)).toContain('<b>Reminder:</b>');

    clock.now = t0 + 109 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(0);
    clock.now = t0 + 110 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(1);
    await receiver.until((calls) => reminderCalls(calls).length === 2);
    await smtp.until(() => smtp.mails.length === 3);
    clock.now = t0 + 119 * minute;
    expect(await server.heed.expireDue()).toMatchObject({ lapsed: 0, reminded: 0 });

    const reminded = (await eventsOf(server, conversationId)).filter((event) => event.type === 'action.reminded');
    expect(reminded.map((event) => [event.at, event.data.minutesLeft])).toEqual([
      [at(60), 60],
      [at(110), 10],
    ]);
    const deliveries = await outboxSettled(server);
    expect(deliveries.filter((delivery) => delivery.event === 'action.reminder')).toHaveLength(4);
    expect(receiver.calls.map(typeOf)).toEqual(['action.required', 'action.reminder', 'action.reminder']);
    expect(smtp.mails).toHaveLength(3);
  });

  it('sends no reminder for a request answered before its time, and plans none already past when it is raised', async () => {
    const { server, receiver, clock } = await remindingServer({
      hitl: { timeoutMinutes: 30, remind: { beforeMinutes: [60, 10] } },
    });
    const answered = await pausedOnRefund(server);
    const open = await pausedOnRefund(server);
    clock.now = t0 + 5 * minute;
    const answer = await server.api(
      'POST',
      `/api/conversations/${answered.conversationId}/actions/${answered.actionId}`,
      {
        token: 'ada',
        body: { resolution: { type: 'approval', decision: 'allow' } },
      },
    );
    expect(answer.status).toBe(200);
    // The 60-minute reminder of a 30-minute deadline was never planned; the 10-minute one comes at minute 20.
    clock.now = t0 + 20 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(1);
    await receiver.until((calls) => reminderCalls(calls).length === 1);
    clock.now = t0 + 31 * minute;
    expect(await server.heed.expireDue()).toMatchObject({ lapsed: 1, reminded: 0 });
    await outboxSettled(server);
    const reminders = reminderCalls(receiver.calls).map((call) => JSON.parse(call.body).data.action.id);
    expect(reminders).toEqual([open.actionId]);
    expect((await eventsOf(server, answered.conversationId)).some((e) => e.type === 'action.reminded')).toBe(false);
  });
  it("keeps to an agent's own hitl.remind over the server's", async () => {
    const ran = new Map<string, number>();
    const { server, receiver, clock } = await remindingServer({
      agents: [{ ...supportAgent(ran), hitl: { remind: { beforeMinutes: [30] } } }],
    });
    await pausedOnRefund(server);
    for (const minutes of [60, 89]) {
      clock.now = t0 + minutes * minute;
      expect((await server.heed.expireDue()).reminded).toBe(0);
    }
    clock.now = t0 + 90 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(1);
    // Not the server's ten-minute one either.
    clock.now = t0 + 110 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(0);
    await receiver.until((calls) => reminderCalls(calls).length === 1);
  });

  it('reminds of a request made with POST /api/requests too, and its assignee may extend it', async () => {
    const { server, receiver, clock } = await remindingServer();
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: { kind: 'approval', title: 'Deploy 1.4?', args: { version: '1.4' } }, assignees: ['bob'] },
    });
    expect(made.status).toBe(201);
    const { id: actionId, conversationId } = made.body;
    clock.now = t0 + 60 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(1);
    await receiver.until((calls) => reminderCalls(calls).length === 1);
    const extended = await server.api('POST', `/api/conversations/${conversationId}/actions/${actionId}/extend`, {
      token: 'bob',
      body: { minutes: 120 },
    });
    expect(extended.status).toBe(200);
    expect(extended.body.action.expiresAt).toBe(at(180));
  });

  it('drops a reminder whose request was answered after the sweep planned it but before it could be sent', async () => {
    // The webhook refuses the reminder's first try; its retry is due a minute later on the fake clock.
    const { server, receiver, smtp, clock } = await remindingServer({}, (n) => (n === 2 ? 503 : 204));
    const { conversationId, actionId } = await pausedOnRefund(server);
    await receiver.until((calls) => calls.length === 1);
    await smtp.until(() => smtp.mails.length === 1);
    clock.now = t0 + 60 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(1);
    await receiver.until((calls) => calls.length === 2);
    await smtp.until(() => smtp.mails.length === 2);
    const answered = await server.api('POST', `/api/conversations/${conversationId}/actions/${actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    clock.now = t0 + 62 * minute;
    const deliveries = await outboxSettled(server);
    const retried = deliveries.find(
      (delivery) => delivery.event === 'action.reminder' && delivery.target.type === 'webhook',
    );
    expect(retried?.status).toBe('dropped');
    expect(JSON.stringify(retried)).toContain('the action is no longer pending (resolved)');
    expect(receiver.calls.map(typeOf)).toEqual(['action.required', 'action.reminder', 'action.resolved']);
  });
});

describe('extending a deadline: POST …/actions/{actionId}/extend', () => {
  it('moves the deadline, records action.extended, plans the reminders again, and the sweep keeps to the new time', async () => {
    const { server, receiver, clock } = await remindingServer();
    const { conversationId, actionId } = await pausedOnRefund(server);
    const path = `/api/conversations/${conversationId}/actions/${actionId}/extend`;
    clock.now = t0 + 60 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(1);
    await receiver.until((calls) => reminderCalls(calls).length === 1);

    clock.now = t0 + 100 * minute;
    // A follower of the live event stream sees the extension too.
    const seen = streamUntil(server, conversationId, 'action.extended');
    const extended = await server.api('POST', path, { token: 'ada', body: { minutes: 180 } });
    expect(extended.status).toBe(200);
    expect(extended.body.action).toMatchObject({ id: actionId, status: 'pending', expiresAt: at(280) });
    const listed = await server.api('GET', `/api/conversations/${conversationId}/actions`, { token: 'ada' });
    expect(listed.body.actions[0].expiresAt).toBe(at(280));
    const [event] = (await eventsOf(server, conversationId)).filter((e) => e.type === 'action.extended');
    expect(event).toMatchObject({
      at: at(100),
      data: { actionId, by: 'ada', minutes: 180, previousExpiresAt: at(120), expiresAt: at(280) },
    });
    expect(JSON.parse(await seen)).toMatchObject({ type: 'action.extended', data: { actionId, expiresAt: at(280) } });

    // The old deadline and its 10-minute reminder pass: nothing lapses, nothing is sent.
    clock.now = t0 + 121 * minute;
    expect(await server.heed.expireDue()).toMatchObject({ lapsed: 0, reminded: 0 });
    const still = await server.api('GET', `/api/conversations/${conversationId}`, { token: 'ada' });
    expect(still.body.runtime.status).toBe('requires_action');
    // The reminders of the new deadline: an hour and ten minutes before it.
    clock.now = t0 + 220 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(1);
    clock.now = t0 + 270 * minute;
    expect((await server.heed.expireDue()).reminded).toBe(1);
    await outboxSettled(server);
    const reminders = reminderCalls(receiver.calls).map((call) => JSON.parse(call.body).data.action.expiresAt);
    expect(reminders).toEqual([at(120), at(280), at(280)]);

    // The new deadline: it lapses then, and an extension after that gets what an answer would (410).
    clock.now = t0 + 280 * minute;
    expect((await server.heed.expireDue()).lapsed).toBe(1);
    const late = await server.api('POST', path, { token: 'ada', body: { minutes: 60 } });
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('action_expired');
  });

  it('refuses bad input with a clear 400 and changes nothing; others get what an answer would get', async () => {
    const { server, clock } = await remindingServer();
    const { conversationId, actionId } = await pausedOnRefund(server);
    const path = `/api/conversations/${conversationId}/actions/${actionId}/extend`;
    clock.now = t0 + 30 * minute;
    const cases: Array<[unknown, number, string, RegExp?]> = [
      [{ minutes: 241 }, 400, 'extension_too_long', /at most 240 minutes from now/],
      [{ minutes: 0 }, 400, 'invalid_extension', /wait forever/],
      [{ minutes: 60 }, 400, 'invalid_extension', /only moves its deadline later/],
      [{ minutes: -5 }, 400, 'invalid_request'],
      [{ minutes: '60' }, 400, 'invalid_request'],
      [{}, 400, 'invalid_request'],
    ];
    for (const [body, status, code, sentence] of cases) {
      const refused = await server.api('POST', path, { token: 'ada', body });
      expect([refused.status, refused.body.error.code]).toEqual([status, code]);
      if (sentence) expect(refused.body.error.message).toMatch(sentence);
    }
    // Someone who may not answer, signed in or not: what an answer gets (the conversation is not theirs to see).
    for (const token of ['bob', undefined]) {
      const refused = await server.api('POST', path, { token, body: { minutes: 200 } });
      const answer = await server.api('POST', `/api/conversations/${conversationId}/actions/${actionId}`, {
        token,
        body: { resolution: { type: 'approval', decision: 'allow' } },
      });
      expect([refused.status, refused.body.error.code]).toEqual([answer.status, answer.body.error.code]);
      expect(refused.status).toBe(404);
    }
    // Forged ids: an action of another conversation, or none.
    const other = await pausedOnRefund(server);
    const crossed = await server.api('POST', `/api/conversations/${conversationId}/actions/${other.actionId}/extend`, {
      token: 'ada',
      body: { minutes: 200 },
    });
    expect([crossed.status, crossed.body.error.code]).toEqual([404, 'not_found']);

    const listed = await server.api('GET', `/api/conversations/${conversationId}/actions`, { token: 'ada' });
    expect(listed.body.actions[0].expiresAt).toBe(at(120));
    expect((await eventsOf(server, conversationId)).some((e) => e.type === 'action.extended')).toBe(false);

    // A settled action: 409 with the stored answer, as a second answer gets.
    await server.api('POST', `/api/conversations/${conversationId}/actions/${actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    const settled = await server.api('POST', path, { token: 'ada', body: { minutes: 200 } });
    expect(settled.status).toBe(409);
    expect(settled.body.error).toMatchObject({ code: 'action_not_pending', details: { status: 'resolved' } });
  });

  it('`minutes: 0` makes it never lapse where hitl.maxExtendMinutes is 0, and its reminders are dropped', async () => {
    const { server, receiver, clock } = await remindingServer({
      hitl: { timeoutMinutes: 120, remind: { beforeMinutes: [60, 10] }, maxExtendMinutes: 0 },
    });
    const { conversationId, actionId } = await pausedOnRefund(server);
    clock.now = t0 + 30 * minute;
    const path = `/api/conversations/${conversationId}/actions/${actionId}/extend`;
    const forever = await server.api('POST', path, { token: 'ada', body: { minutes: 0 } });
    expect(forever.status).toBe(200);
    expect(forever.body.action.expiresAt).toBeUndefined();
    // No deadline left to extend: a later extension would only give it one.
    const again = await server.api('POST', path, { token: 'ada', body: { minutes: 60 } });
    expect([again.status, again.body.error.code]).toEqual([400, 'invalid_extension']);
    expect(again.body.error.message).toBe('This request never lapses: there is no deadline to extend.');
    clock.now = t0 + 10_000 * minute;
    expect(await server.heed.expireDue()).toMatchObject({ lapsed: 0, reminded: 0 });
    await outboxSettled(server);
    expect(receiver.calls.map(typeOf)).toEqual(['action.required']);
    // Still answerable, and the answer carries the turn on.
    const answered = await server.api('POST', `/api/conversations/${conversationId}/actions/${actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    expect(server.ran.get('issue_refund')).toBe(1);
  });
});
