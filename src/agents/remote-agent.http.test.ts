import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import type { RemoteCallBody } from './handler-types.js';

/** Remote agents: the handler's two calls as signed POSTs to a service of the host's, over real HTTP on loopback. */

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const servers: TestServer[] = [];
const remotes: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(remotes.splice(0).map((remote) => new Promise((done) => remote.close(done))));
});

interface Received {
  webhookId: string;
  verified: boolean;
  body: RemoteCallBody;
}

/** A remote agent on loopback: verifies each call's signature, then answers with `reply` (status and body). */
async function remoteAgent(reply: (body: RemoteCallBody, attempt: number) => { status: number; body: unknown }) {
  const received: Received[] = [];
  const webhook = new Webhook(secret);
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      let verified = true;
      try {
        webhook.verify(raw, request.headers as Record<string, string>);
      } catch {
        verified = false;
      }
      const body = JSON.parse(raw) as RemoteCallBody;
      const webhookId = String(request.headers['webhook-id']);
      received.push({ webhookId, verified, body });
      const attempt = received.filter((entry) => entry.webhookId === webhookId).length;
      const answer = reply(body, attempt);
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  remotes.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/heed`;
  return { url, received };
}

async function start(url: string) {
  const server = await startServer({ agents: [{ name: 'remote', remote: { url, secret, timeoutSeconds: 10 } }] });
  servers.push(server);
  const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'remote' } })).body;
  const send = (content: string) =>
    server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
  const answer = (actionId: string, resolution: object) =>
    server.api('POST', `/api/conversations/${id}/actions/${actionId}`, { token: 'ada', body: { resolution } });
  return { server, id: id as string, send, answer };
}

describe('remote agents', () => {
  it('signed calls, a 503 tried again with the same webhook-id, a pause and its continuation', async () => {
    const remote = await remoteAgent((body, attempt) => {
      if (body.type === 'message' && attempt === 1) return { status: 503, body: 'busy, try again' };
      if (body.type === 'message')
        return {
          status: 200,
          body: {
            content: 'I need a yes.',
            pendingActions: [{ kind: 'approval', title: 'Ship it?', args: { release: '1.2.0' } }],
          },
        };
      return { status: 200, body: { content: `Shipping: ${(body.resolution as { decision: string }).decision}.` } };
    });
    const { id, send, answer } = await start(remote.url);
    const sent = await send('ship 1.2.0');
    expect(sent.body.status).toBe('requires_action');
    const action = sent.body.pendingActions[0];
    expect(action).toMatchObject({ kind: 'approval', title: 'Ship it?', args: { release: '1.2.0' } });

    // Two tries of the first call, with one webhook-id, each signed.
    expect(remote.received).toHaveLength(2);
    expect(remote.received.every((entry) => entry.verified)).toBe(true);
    expect(remote.received[0].webhookId).toBe(remote.received[1].webhookId);
    const first = remote.received[0].body;
    expect(first).toMatchObject({ type: 'message', conversation: { id }, message: { role: 'user' } });
    expect(first.idempotencyKey).toBe(first.message?.id);

    const bad = await answer(action.id, { type: 'approval', decision: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_resolution');
    expect(remote.received).toHaveLength(2);

    const done = await answer(action.id, { type: 'approval', decision: 'allow', comment: 'Go.' });
    expect(done.body.status).toBe('completed');
    expect(remote.received).toHaveLength(3);
    const replay = await answer(action.id, { type: 'approval', decision: 'deny' });
    expect(replay.status).toBe(409);
    expect(replay.body.error.details.resolution).toMatchObject({ decision: 'allow', comment: 'Go.' });
    expect(remote.received).toHaveLength(3);
    const second = remote.received[2];
    expect(second.verified).toBe(true);
    expect(second.webhookId).not.toBe(remote.received[0].webhookId);
    expect(second.body).toMatchObject({
      type: 'resolution',
      action: { id: action.id },
      resolution: { type: 'approval', decision: 'allow', comment: 'Go.' },
      idempotencyKey: action.id,
    });
    const last = done.body.messages.at(-1);
    expect(last.parts).toEqual([{ type: 'text', text: 'Shipping: allow.' }]);
  });

  it('a 4xx fails the turn with the status and the first 200 characters of the body, tried once', async () => {
    const long = `no such tenant ${'x'.repeat(300)}`;
    const remote = await remoteAgent(() => ({ status: 422, body: long }));
    const { send } = await start(remote.url);
    const sent = await send('hello');
    expect(sent.body.status).toBe('failed');
    expect(sent.body.error.code).toBe('agent_error');
    expect(sent.body.error.message).toBe(`The remote agent at ${remote.url} answered 422: ${long.slice(0, 200)}…`);
    expect(remote.received).toHaveLength(1);
  });

  it('a reply not of the handler reply shape fails the turn, quoting it', async () => {
    const remote = await remoteAgent(() => ({ status: 200, body: { content: 42 } }));
    const { send } = await start(remote.url);
    const sent = await send('hello');
    expect(sent.body.status).toBe('failed');
    expect(sent.body.error.message).toContain('answered 200 with a reply Heed cannot read (content:');
    expect(sent.body.error.message).toContain('{"content":42}');
  });

  it('three 5xx in a row fail the turn, saying so', async () => {
    const remote = await remoteAgent(() => ({ status: 500, body: 'boom' }));
    const { send } = await start(remote.url);
    const sent = await send('hello');
    expect(sent.body.error.message).toBe(
      `The remote agent at ${remote.url} failed after 3 tries: it answered 500: boom`,
    );
    expect(new Set(remote.received.map((entry) => entry.webhookId)).size).toBe(1);
    expect(remote.received).toHaveLength(3);
  });

  it('a pause that outlives a restart (SQLite) and then lapses under deny hands the denial to the remote agent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heed-remote-'));
    try {
      const path = join(dir, 'heed.db');
      const remote = await remoteAgent((body) =>
        body.type === 'message'
          ? { status: 200, body: { pendingActions: [{ kind: 'approval', title: 'Ship it?', expiresInMinutes: 5 }] } }
          : { status: 200, body: { content: 'Not shipped.' } },
      );
      const agents = [{ name: 'remote', remote: { url: remote.url, secret } }];
      const first = await startServer({ agents, store: sqliteStore({ path }) });
      const { id } = (await first.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'remote' } })).body;
      const sent = await first.api('POST', `/api/conversations/${id}/messages`, {
        token: 'ada',
        body: { content: 'ship' },
      });
      expect(sent.body.status).toBe('requires_action');
      await first.close();

      const later = new Date(Date.now() + 10 * 60_000);
      const second = await startServer({ agents, store: sqliteStore({ path }), now: () => later });
      servers.push(second);
      const report = await second.heed.expireDue();
      expect(report.lapsed).toBe(1);
      expect(remote.received.map((entry) => entry.body.type)).toEqual(['message', 'resolution']);
      expect(remote.received[1].body.resolution).toMatchObject({ type: 'approval', decision: 'deny' });
      expect(remote.received[1].verified).toBe(true);
      const conversation = await second.api('GET', `/api/conversations/${id}`, { token: 'ada' });
      expect(JSON.stringify(conversation.body)).toContain('Not shipped.');
    } finally {
      await Promise.all(servers.splice(0).map((server) => server.close()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a lapse under onTimeout cancel ends the turn and calls the remote agent no more', async () => {
    const remote = await remoteAgent(() => ({
      status: 200,
      body: { pendingActions: [{ kind: 'approval', title: 'Ship it?', expiresInMinutes: 5 }] },
    }));
    let now = new Date('2026-01-01T10:00:00Z');
    const server = await startServer({
      agents: [{ name: 'remote', remote: { url: remote.url, secret }, hitl: { onTimeout: 'cancel' } }],
      now: () => now,
    });
    servers.push(server);
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'remote' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'ship' },
    });
    expect(sent.body.status).toBe('requires_action');
    now = new Date('2026-01-01T10:06:00Z');
    expect((await server.heed.expireDue()).lapsed).toBe(1);
    expect(remote.received.map((entry) => entry.body.type)).toEqual(['message']);
    const actions = await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' });
    expect(actions.body.actions[0].status).toBe('expired');
    const conversation = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
    expect(conversation.body.runtime.status).toBe('idle');
  });
});
