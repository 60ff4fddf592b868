/**
 * Attacks on who may see and answer what, each made over real HTTP by two users with tokens or by an
 * anonymous caller against a signed-in one: hidden conversations stay hidden (one 404 for "not yours"
 * and "not there"), client-chosen AI SDK chat ids cannot be used to read a signed-in user's messages,
 * conversation ids cannot be guessed, a refused request writes nothing, and no user id can pass for
 * the system, a lapse or an anonymous caller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, tokens, type ApiResponse, type TestServer } from '../../test/http-fixtures.js';

const people = {
  ...tokens,
  carol: { userId: 'carol' },
  // Users whose ids look like the labels the record used to carry.
  fakeTimeout: { userId: 'system:timeout' },
  fakeAnonymous: { userId: 'anonymous' },
};

let server: TestServer;
let hooked: TestServer;
let counter = 0;
const chatId = () => `chat-${Date.now().toString(36)}-${counter++}`;
const approve = { resolution: { type: 'approval', decision: 'allow' } };

beforeAll(async () => {
  const limits = { conversationsPerMinute: 0 };
  server = await startServer({ auth: { tokens: people }, limits });
  // Bob (role approver) may answer anyone's approvals; nobody else may answer through the hook.
  hooked = await startServer({
    auth: { tokens: people },
    limits,
    hitl: { authorizeResolve: (caller) => caller?.data?.role === 'approver' },
  });
});
afterAll(async () => {
  await server?.close();
  await hooked?.close();
});

/** A conversation of `token`'s (anonymous when omitted) paused on `content`. */
async function paused(on: TestServer, content: string, token?: string): Promise<{ id: string; actionId: string }> {
  const created = await on.api('POST', '/api/conversations', { token, body: { agent: 'support' } });
  expect(created.status).toBe(201);
  const sent = await on.api('POST', `/api/conversations/${created.body.id}/messages`, { token, body: { content } });
  expect(sent.body.status).toBe('requires_action');
  return { id: created.body.id, actionId: sent.body.pendingActions[0].id };
}

/** The error with the conversation id taken out: what must not differ between "not yours" and "not there". */
function shape(response: ApiResponse) {
  const details = { ...response.body?.error?.details };
  delete details.conversationId;
  return { status: response.status, code: response.body?.error?.code, message: response.body?.error?.message, details };
}

/** Posts what `useChat`'s DefaultChatTransport posts. */
function chat(on: TestServer, id: string, text: string, token?: string): Promise<ApiResponse> {
  return on.api('POST', '/api/ai-sdk/chat/support', {
    token,
    body: {
      id,
      trigger: 'submit-message',
      messages: [{ id: `u-${counter++}`, role: 'user', parts: [{ type: 'text', text }] }],
    },
  });
}

describe('with hitl.authorizeResolve set, someone who may neither see nor answer learns nothing (issue 11, item 8)', () => {
  it('gets the 404 of a conversation that does not exist, never a stored answer, while the owner keeps the order of docs/http.md#errors', async () => {
    const target = await paused(hooked, 'refund', 'ada');
    const missing = await hooked.api('POST', `/api/conversations/c_doesnotexist/actions/${target.actionId}`, {
      token: 'carol',
      body: approve,
    });
    expect(shape(missing)).toEqual({
      status: 404,
      code: 'not_found',
      message: 'There is no conversation with that id.',
      details: {},
    });

    // Pending, a wrong action id, then settled by bob: carol gets that same 404 every time.
    const pending = await hooked.api('POST', `/api/conversations/${target.id}/actions/${target.actionId}`, {
      token: 'carol',
      body: approve,
    });
    expect(shape(pending)).toEqual(shape(missing));
    const wrongAction = await hooked.api('POST', `/api/conversations/${target.id}/actions/a_nope`, {
      token: 'carol',
      body: approve,
    });
    expect(shape(wrongAction)).toEqual(shape(missing));
    expect(
      shape(
        await hooked.api('POST', `/api/conversations/c_doesnotexist/actions/a_nope`, { token: 'carol', body: approve }),
      ),
    ).toEqual(shape(missing));

    // The owner sees the conversation: the hook refuses her with 403 (after 404 → 409 → 410).
    const owner = await hooked.api('POST', `/api/conversations/${target.id}/actions/${target.actionId}`, {
      token: 'ada',
      body: approve,
    });
    expect(owner.body.error.code).toBe('action_forbidden');

    const answered = await hooked.api('POST', `/api/conversations/${target.id}/actions/${target.actionId}`, {
      token: 'bob',
      body: approve,
    });
    expect(answered.status).toBe(200);
    const settled = await hooked.api('POST', `/api/conversations/${target.id}/actions/${target.actionId}`, {
      token: 'carol',
      body: approve,
    });
    expect(shape(settled)).toEqual(shape(missing));
    expect(settled.text).not.toContain('bob');
    expect(settled.text).not.toContain('resolution');

    // Those who may see or answer get §3's 409 with the stored answer.
    for (const token of ['ada', 'bob']) {
      const again = await hooked.api('POST', `/api/conversations/${target.id}/actions/${target.actionId}`, {
        token,
        body: approve,
      });
      expect(again.status).toBe(409);
      expect(again.body.error.details).toMatchObject({
        resolvedBy: 'bob',
        channel: 'api',
        resolution: { decision: 'allow' },
      });
    }
    // Ada may see the conversation: a wrong action id is named as such.
    const adaWrong = await hooked.api('POST', `/api/conversations/${target.id}/actions/a_nope`, {
      token: 'ada',
      body: approve,
    });
    expect(adaWrong.body.error.message).toBe('There is no action with that id in this conversation.');
  });

  it('every conversation route answers "not yours" and "not there" alike', async () => {
    for (const on of [server, hooked]) {
      const target = await paused(on, 'refund', 'ada');
      const routes: Array<[string, (id: string) => string, unknown?]> = [
        ['GET', (id) => `/api/conversations/${id}`],
        ['GET', (id) => `/api/conversations/${id}/actions`],
        ['POST', (id) => `/api/conversations/${id}/actions/${target.actionId}`, approve],
        ['POST', (id) => `/api/conversations/${id}/actions/a_nope`, approve],
        ['POST', (id) => `/api/conversations/${id}/messages`, { content: 'hello' }],
        ['POST', (id) => `/api/conversations/${id}/cancel`, {}],
        ['POST', (id) => `/api/conversations/${id}/branch`, {}],
        ['GET', (id) => `/api/conversations/${id}/events`],
        ['GET', (id) => `/api/conversations/${id}/events/stream`],
        ['GET', (id) => `/api/conversations/${id}/remembered-tools`],
        ['DELETE', (id) => `/api/conversations/${id}/remembered-tools/issue_refund`],
        ['GET', (id) => `/api/ai-sdk/chat/support/${id}/messages`],
        ['GET', (id) => `/api/ai-sdk/chat/support/${id}/stream`],
      ];
      for (const [method, path, body] of routes) {
        for (const token of ['carol', undefined]) {
          const hidden = await on.api(method, path(target.id), { token, body });
          const absent = await on.api(method, path('c_doesnotexist'), { token, body });
          expect(shape(hidden), `${method} ${path(':id')} as ${token ?? 'anonymous'}`).toEqual(shape(absent));
          // The AI SDK reads answer a chat that is not there as empty (`{ messages: [] }`, 204): so does someone else's.
          expect(hidden.status).toBe(
            path('x').startsWith('/api/ai-sdk/') ? (path('x').endsWith('/stream') ? 204 : 200) : 404,
          );
          if (path('x').startsWith('/api/ai-sdk/')) expect(hidden.text).toBe(absent.text);
        }
      }
      expect(
        (await on.api('GET', `/api/conversations/${target.id}`, { token: 'ada' })).body.runtime.pendingActionIds,
      ).toEqual([target.actionId]);
    }
  });
});

describe('the AI SDK chat endpoint and client-chosen ids (issue 11, item 9)', () => {
  it('a signed-in user never joins an ownerless chat an anonymous caller started under an id it picked', async () => {
    const id = chatId();
    const started = await chat(server, id, 'hello');
    expect(started.status).toBe(200);
    const joined = await chat(server, id, 'my card number is 4242', 'ada');
    expect(joined.status).toBe(409);
    expect(joined.body.error).toMatchObject({ code: 'chat_id_taken', details: { conversationId: id } });
    expect((await server.api('GET', `/api/ai-sdk/chat/support/${id}/messages`, { token: 'ada' })).body.error.code).toBe(
      'chat_id_taken',
    );
    // What the anonymous caller can read holds nothing ada wrote.
    const read = await server.api('GET', `/api/ai-sdk/chat/support/${id}/messages`);
    expect(read.status).toBe(200);
    expect(read.text).not.toContain('4242');
    expect((await server.api('GET', `/api/conversations/${id}`)).text).not.toContain('4242');
    // A new id (what useChat makes per chat) works as before, and is ada's alone.
    const own = chatId();
    expect((await chat(server, own, 'hi', 'ada')).status).toBe(200);
    expect((await server.api('GET', `/api/conversations/${own}`, { token: 'ada' })).body.conversation.ownerId).toBe(
      'ada',
    );
    expect((await server.api('GET', `/api/ai-sdk/chat/support/${own}/messages`)).body).toEqual({ messages: [] });
  });
});

describe('conversation ids (issue 11, item 11)', () => {
  it('carry at least 122 random bits after a time-ordered, readable prefix', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 5; index++)
      ids.push((await server.api('POST', '/api/conversations', { body: { agent: 'support' } })).body.id);
    for (const id of ids) {
      const match = /^c_([0-9a-z]{11})([A-Za-z0-9_-]+)$/.exec(id);
      expect(match, id).not.toBeNull();
      expect(match![2].length * 6, id).toBeGreaterThanOrEqual(122);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids.map((id) => id.slice(13))).size).toBe(ids.length);
  });
});

describe('a refused AI SDK message changes nothing (issue 11, item 13)', () => {
  it('a message over 100,000 characters is a 400 and no conversation is created', async () => {
    const id = chatId();
    const refused = await chat(server, id, 'x'.repeat(100_001), 'ada');
    expect(refused.status).toBe(400);
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).status).toBe(404);
    expect(
      (await server.api('GET', '/api/conversations', { token: 'ada' })).body.conversations.map(
        (c: { id: string }) => c.id,
      ),
    ).not.toContain(id);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'body.messages' } });
    // The id is still free: the same chat starts once the message fits.
    expect((await chat(server, id, 'short', 'ada')).status).toBe(200);
  });
});

describe('who answered and how are separate fields (issue 11, item 14)', () => {
  const settle = (on: TestServer, target: { id: string; actionId: string }, token?: string) =>
    on.api('POST', `/api/conversations/${target.id}/actions/${target.actionId}`, { token, body: approve });
  const resolvedEvent = async (id: string, token?: string) =>
    (await server.api('GET', `/api/conversations/${id}/events`, { token })).body.events.find(
      (event: { type: string }) => event.type === 'action.resolved',
    );

  it('a user whose id is "system:timeout" answers as that user, over the api, never as a lapse', async () => {
    const target = await paused(server, 'refund', 'fakeTimeout');
    expect((await settle(server, target, 'fakeTimeout')).status).toBe(200);
    const [action] = (await server.api('GET', `/api/conversations/${target.id}/actions`, { token: 'fakeTimeout' })).body
      .actions;
    expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'system:timeout', channel: 'api' });
    expect((await resolvedEvent(target.id, 'fakeTimeout')).data).toMatchObject({
      resolvedBy: 'system:timeout',
      channel: 'api',
      status: 'approved',
    });
    const late = await settle(server, target, 'fakeTimeout');
    expect(late.body.error.details).toMatchObject({ resolvedBy: 'system:timeout', channel: 'api' });
  });

  it('a user named "anonymous" and an anonymous caller are told apart', async () => {
    const named = await paused(server, 'refund', 'fakeAnonymous');
    await settle(server, named, 'fakeAnonymous');
    const anonymous = await paused(server, 'refund');
    await settle(server, anonymous);
    const [byNamed] = (await server.api('GET', `/api/conversations/${named.id}/actions`, { token: 'fakeAnonymous' }))
      .body.actions;
    const [byAnonymous] = (await server.api('GET', `/api/conversations/${anonymous.id}/actions`)).body.actions;
    expect(byNamed).toMatchObject({ resolvedBy: 'anonymous', channel: 'api' });
    expect(byAnonymous.channel).toBe('api');
    expect(byAnonymous).not.toHaveProperty('resolvedBy');
    expect((await resolvedEvent(anonymous.id)).data).toMatchObject({ resolvedBy: null, channel: 'api' });
    // The remembered approval records no user either.
    const remembered = await paused(server, 'refund');
    await server.api('POST', `/api/conversations/${remembered.id}/actions/${remembered.actionId}`, {
      body: { resolution: { type: 'approval', decision: 'allow', remember: true } },
    });
    expect((await server.api('GET', `/api/conversations/${remembered.id}/remembered-tools`)).body.tools).toMatchObject([
      { toolName: 'issue_refund', rememberedBy: null },
    ]);
  });

  it('a lapse and a cancel say so in channel, whoever the user ids are', async () => {
    // The server's clock, moved on by the test past the request's 30 ms.
    let ahead = 0;
    const lapsing = await startServer({
      auth: { tokens: people },
      hitl: { timeoutMinutes: 0.0005 },
      now: () => new Date(Date.now() + ahead),
    });
    try {
      const target = await paused(lapsing, 'refund', 'fakeTimeout');
      ahead = 60_000;
      await lapsing.heed.expireDue();
      const [action] = (await lapsing.api('GET', `/api/conversations/${target.id}/actions`, { token: 'fakeTimeout' }))
        .body.actions;
      // The lapse is recorded as DESIGN.md §4 has it; its channel, never the user id, is what says it lapsed.
      expect(action).toMatchObject({ status: 'expired', resolvedBy: 'system:timeout', channel: 'timeout' });
      const cancelled = await paused(lapsing, 'refund', 'fakeTimeout');
      expect(
        (await lapsing.api('POST', `/api/conversations/${cancelled.id}/cancel`, { token: 'fakeTimeout', body: {} }))
          .status,
      ).toBe(200);
      const [closed] = (
        await lapsing.api('GET', `/api/conversations/${cancelled.id}/actions`, { token: 'fakeTimeout' })
      ).body.actions;
      expect(closed).toMatchObject({ status: 'cancelled', resolvedBy: 'system:timeout', channel: 'api' });
      const stream = await lapsing.api('GET', `/api/conversations/${cancelled.id}/events`, { token: 'fakeTimeout' });
      expect(stream.body.events.find((event: { type: string }) => event.type === 'action.resolved').data).toMatchObject(
        { channel: 'api', resolvedBy: 'system:timeout' },
      );
    } finally {
      await lapsing.close();
    }
  });
});
