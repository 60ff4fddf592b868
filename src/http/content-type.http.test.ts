import { z } from 'zod';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { createHeed, engineOf, hooksOf } from '../heed.js';
import { scriptedModel } from '../testing/index.js';
import { errorResponse } from './errors.js';
import { defineRoute, mountRoutes, type AppEnv } from './route.js';

// A page on any site may POST a text/plain body without a CORS preflight (a "simple" request). Were it read
// as JSON, the page could start conversations and send messages on an anonymous server, spending its tokens.
describe('request bodies must be sent as JSON', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const plain = (path: string, body: unknown, type = 'text/plain;charset=UTF-8') =>
    server.api('POST', path, { raw: JSON.stringify(body), headers: { 'content-type': type } });

  it('a text/plain POST (as a cross-site page sends it) gets 415 and creates nothing', async () => {
    const before = (await engineOf(server.heed).store.listConversations({})).length;
    for (const type of [
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
    ]) {
      const response = await plain('/api/conversations', { agent: 'support' }, type);
      expect(response.status, type).toBe(415);
      expect(response.body.error.code).toBe('unsupported_media_type');
      expect(response.body.error.message).toContain('Content-Type: application/json');
    }
    expect((await engineOf(server.heed).store.listConversations({})).length).toBe(before);
  });

  it('a text/plain message to an existing conversation is refused: nothing recorded, the model not called', async () => {
    const created = await server.api('POST', '/api/conversations', { body: { agent: 'support' } });
    expect(created.status).toBe(201);
    const refused = await plain(`/api/conversations/${created.body.id}/messages`, { content: 'refund' });
    expect(refused.status).toBe(415);
    expect(await engineOf(server.heed).store.listMessages(created.body.id)).toEqual([]);
    expect(server.ran.size).toBe(0);
  });

  it('the AI SDK chat endpoint refuses a text/plain body too', async () => {
    const refused = await plain('/api/ai-sdk/chat/support', {
      id: 'chat_plain',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
      trigger: 'submit-message',
    });
    expect(refused.status).toBe(415);
    await expect(engineOf(server.heed).store.getConversation('chat_plain')).resolves.toBeUndefined();
  });

  it('a body with no Content-Type at all is refused as well', async () => {
    const response = await fetch(`${server.url}/api/conversations`, {
      method: 'POST',
      body: new Blob([JSON.stringify({ agent: 'support' })]),
    });
    expect(response.status).toBe(415);
    expect((await response.json()).error.details).toEqual({ contentType: null });
  });

  it('accepts application/json with a charset, in any case, and an empty POST needs no type', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      const response = await plain('/api/conversations', { agent: 'support' }, type);
      expect(response.status, type).toBe(201);
    }
    const created = await server.api('POST', '/api/conversations', { body: { agent: 'support' } });
    // `curl -X POST .../branch`: no body, so nothing to declare.
    const branched = await fetch(`${server.url}/api/conversations/${created.body.id}/branch`, { method: 'POST' });
    expect(branched.status).toBe(201);
  });

  it('a route marked `bodyType: "any"` takes other bodies (the later webhook exemption is one line)', async () => {
    const heed = createHeed({
      agents: [{ name: 'a', model: scriptedModel(() => ({ text: 'hi' })) }],
      sweepIntervalMs: 0,
    });
    const app = new Hono<AppEnv>();
    app.onError((error) => errorResponse(error));
    const route = (path: string, bodyType?: 'any') =>
      defineRoute(
        {
          method: 'post',
          path,
          operationId: path,
          summary: '',
          tag: 't',
          body: z.object({ n: z.number() }),
          bodyType,
          responses: {},
          errors: [],
        },
        ({ body }) => Response.json(body),
      );
    mountRoutes(app, heed, hooksOf(heed), [route('/strict'), route('/webhook', 'any')], {
      signal: new AbortController().signal,
      maxBodyBytes: 1000,
    });
    const post = (path: string) =>
      app.request(path, { method: 'POST', body: '{"n":1}', headers: { 'content-type': 'text/plain' } });
    expect((await post('/strict')).status).toBe(415);
    expect(await (await post('/webhook')).json()).toEqual({ n: 1 });
    await heed.close();
  });
});
