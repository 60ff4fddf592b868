import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, HeedApiError, HeedClientError, type ErrorBody } from 'heed/client';
import { errorBody } from '../protocol/responses.js';
import { startServer, type TestServer } from '../../test/http-fixtures.js';

describe('heed/client', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends, lists what is pending, answers, and reads the outcome', async () => {
    const client = createClient({ baseUrl: server.url, token: 'ada' });
    expect((await client.agents()).map((agent) => agent.name)).toEqual(['support']);
    const conversation = await client.createConversation({ agent: 'support' });
    const paused = await client.send(conversation.id, 'refund');
    expect(paused.status).toBe('requires_action');
    const [action] = await client.pending(conversation.id);
    expect((await client.inbox()).actions.map((entry) => entry.id)).toContain(action.id);
    // An extension: the deadline moves to 2 days from now (the default bound is 7 days; the default deadline 1 day).
    const extended = await client.extend(conversation.id, action.id, 2880);
    expect(Date.parse(extended.action.expiresAt!) - Date.parse(action.expiresAt!)).toBeGreaterThan(23 * 3600_000);
    await expect(client.extend(conversation.id, action.id, 20_000)).rejects.toMatchObject({
      status: 400,
      code: 'extension_too_long',
    });
    const done = await client.answer(conversation.id, action.id, { type: 'approval', decision: 'allow' });
    expect(done.status).toBe('completed');
    expect((await client.getConversation(conversation.id)).runtime.status).toBe('idle');
    expect((await client.listConversations({ agent: 'support' })).map((entry) => entry.id)).toContain(conversation.id);
    expect((await client.events(conversation.id, { after: 0, limit: 2 })).hasMore).toBe(true);
  });

  it('throws HeedApiError with the code and status', async () => {
    const client = createClient({ baseUrl: server.url, token: 'ada' });
    const error = await client.getConversation('c_missing').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(HeedApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    await expect(createClient({ baseUrl: server.url, token: 'wrong' }).agents()).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
  });

  it('reads the one error schema of the server: isInstance, a known code, typed details', async () => {
    const client = createClient({ baseUrl: server.url, token: 'ada' });
    const refused = await client.createConversation({ agent: 'nobody' }).catch((thrown: unknown) => thrown);
    expect(HeedClientError.isInstance(refused)).toBe(true);
    expect(HeedClientError.isInstance(new Error('not ours'))).toBe(false);
    if (!HeedClientError.isInstance(refused)) return;
    // The code is one of the codes the server lists (a type error if it were not); the body parses with the server's schema.
    const known: ErrorBody['error']['code'] | 'http_error' | 'stream_error' = refused.code;
    expect(
      errorBody.parse({
        error: { code: known, message: refused.message, ...(refused.details ? { details: refused.details } : {}) },
      }).error.code,
    ).toBe(refused.code);
    expect(refused).toBeInstanceOf(HeedApiError);

    const response = await fetch(`${server.url}/api/conversations/c_missing`, {
      headers: { authorization: 'Bearer ada' },
    });
    const body: ErrorBody = errorBody.parse(await response.json());
    expect(body.error).toMatchObject({ code: 'not_found' });
  });

  it('streams a turn and follows the log live', async () => {
    const client = createClient({ baseUrl: server.url, token: 'ada' });
    const conversation = await client.createConversation({ agent: 'support' });
    const controller = new AbortController();
    const followed: number[] = [];
    const following = (async () => {
      for await (const event of client.follow(conversation.id, { signal: controller.signal })) {
        followed.push(event.seq);
        if (event.type === 'turn.completed') controller.abort();
      }
    })();
    const parts = [];
    for await (const part of client.sendStream(conversation.id, 'ask me')) parts.push(part);
    const done = parts.at(-1)!;
    expect(done.type).toBe('done');
    const [question] = done.type === 'done' ? done.result.pendingActions! : [];
    const answered = [];
    for await (const part of client.answerStream(conversation.id, question.id, { type: 'question', skip: true }))
      answered.push(part);
    expect(answered.at(-1)).toMatchObject({ type: 'done', result: { status: 'completed' } });
    await following;
    const total = (await client.events(conversation.id, { limit: 500 })).events.length;
    expect(followed).toEqual(Array.from({ length: total }, (_, index) => index + 1));
  });

  it('makes, lists and revokes personal tokens; the secret is given once and then works as a bearer token', async () => {
    const client = createClient({ baseUrl: server.url, token: 'ada' });
    const made = await client.createToken({ name: 'laptop', scopes: ['read', 'answer'], expiresInDays: 30 });
    expect(made).toMatchObject({ name: 'laptop', scopes: ['read', 'answer'], lastUsedAt: null });
    expect(Date.parse(made.expiresAt!) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const listed = await client.listTokens();
    expect(listed.map((token) => token.id)).toContain(made.id);
    expect(JSON.stringify(listed)).not.toContain(made.token);

    const personal = createClient({ baseUrl: server.url, token: made.token });
    expect((await personal.me()).userId).toBe('ada');
    // A personal token does not manage tokens.
    await expect(personal.listTokens()).rejects.toMatchObject({ status: 403, code: 'scope' });

    await client.revokeToken(made.id);
    expect((await client.listTokens()).map((token) => token.id)).not.toContain(made.id);
    await expect(personal.me()).rejects.toMatchObject({ status: 401 });
    await expect(client.revokeToken(made.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});
