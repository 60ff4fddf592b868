import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, tokens, type TestServer } from '../../test/http-fixtures.js';
import { createClient } from '../client/index.js';
import type { HeedConfig } from '../config.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';

/** Requests from anywhere (`POST /api/requests`), over real HTTP on loopback. */

const servers: TestServer[] = [];
const receivers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(receivers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const people = { ...tokens, eve: { userId: 'eve' } };
const secret = `whsec_${Buffer.from('a request callback secret, 32 bytes!').toString('base64')}`;

async function start(config: Partial<HeedConfig> = {}) {
  const server = await startServer({ auth: { tokens: people }, ...config });
  servers.push(server);
  return server;
}

const approval = { kind: 'approval', title: 'Deploy 1.4 to production?', args: { version: '1.4' } };

describe('requests from anywhere over HTTP', () => {
  it('a request shows in its assignee’s inbox, is answered through the action route with no turn, and a wait returns it settled', async () => {
    const server = await start();
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: approval, assignees: ['bob'], metadata: { ticket: 'OPS-7' } },
    });
    expect(made.status).toBe(201);
    const action = made.body;
    expect(action).toMatchObject({
      kind: 'approval',
      title: 'Deploy 1.4 to production?',
      args: { version: '1.4' },
      approvers: ['bob'],
      status: 'pending',
      toolName: 'request',
    });

    const inbox = await server.api('GET', '/api/inbox', { token: 'bob' });
    expect(inbox.body.actions.map((entry: { id: string }) => entry.id)).toEqual([action.id]);
    expect(inbox.body.actions[0].conversation).toMatchObject({ title: 'Deploy 1.4 to production?', ownerId: 'ada' });

    // A wait started before the answer returns with it.
    const waiting = server.api('GET', `/api/requests/${action.id}/wait?timeoutSeconds=20`, { token: 'ada' });
    const answered = await server.api('POST', `/api/conversations/${action.conversationId}/actions/${action.id}`, {
      token: 'bob',
      body: { resolution: { type: 'approval', decision: 'allow', comment: 'Go.' } },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'completed', messages: [] });
    const waited = await waiting;
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({
      id: action.id,
      status: 'resolved',
      resolvedBy: 'bob',
      resolution: { type: 'approval', decision: 'allow', comment: 'Go.' },
    });
    // Waiting on a settled request answers at once.
    expect((await server.api('GET', `/api/requests/${action.id}/wait`, { token: 'bob' })).status).toBe(200);

    // No turn ran: the conversation rests, its log has no turn, and it takes no messages.
    const conversation = await server.api('GET', `/api/conversations/${action.conversationId}`, { token: 'ada' });
    expect(conversation.body.conversation).toMatchObject({ status: 'idle', agent: 'heed:requests' });
    expect(conversation.body.conversation.metadata).toEqual({ title: 'Deploy 1.4 to production?', ticket: 'OPS-7' });
    const events = await server.api('GET', `/api/conversations/${action.conversationId}/events`, { token: 'ada' });
    expect(events.body.events.map((event: { type: string }) => event.type)).toEqual([
      'message.created',
      'tool.called',
      'action.required',
      'action.resolved',
    ]);
    const sent = await server.api('POST', `/api/conversations/${action.conversationId}/messages`, {
      token: 'ada',
      body: { content: 'hello?' },
    });
    expect(sent.status).toBe(400);
    expect(sent.body.error.message).toContain('no agent runs in it');
    // The agents list is unchanged, and the inbox is empty again.
    const agents = await server.api('GET', '/api/agents', { token: 'ada' });
    expect(agents.body.agents.map((agent: { name: string }) => agent.name)).toEqual(['support']);
    expect((await server.api('GET', '/api/inbox', { token: 'bob' })).body.actions).toEqual([]);
  });

  it('a question for an assignee is answered by them; the caller may read it, anyone else gets the 404 of a missing id', async () => {
    const server = await start();
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: {
        request: {
          kind: 'question',
          questions: [{ id: 'region', prompt: 'Which region?', options: [{ label: 'EU' }, { label: 'US' }] }],
        },
        assignees: ['bob'],
      },
    });
    expect(made.status).toBe(201);
    const { id, conversationId } = made.body;

    const stranger = await server.api('GET', `/api/requests/${id}`, { token: 'eve' });
    const missing = await server.api('GET', `/api/requests/a_${'x'.repeat(32)}`, { token: 'eve' });
    expect(stranger.status).toBe(404);
    expect(missing.status).toBe(404);
    expect({ ...stranger.body.error, details: null }).toEqual({ ...missing.body.error, details: null });
    expect((await server.api('GET', `/api/requests/${id}/wait?timeoutSeconds=0`, { token: 'eve' })).status).toBe(404);
    const refused = await server.api('POST', `/api/conversations/${conversationId}/actions/${id}`, {
      token: 'eve',
      body: { resolution: { type: 'question', answers: { region: 'EU' } } },
    });
    expect(refused.status).toBe(404);

    expect((await server.api('GET', `/api/requests/${id}`, { token: 'bob' })).body.status).toBe('pending');
    // The assignee reads the conversation the request lives in (the console opens it from the inbox).
    const opened = await server.api('GET', `/api/conversations/${conversationId}`, { token: 'bob' });
    expect(opened.status).toBe(200);
    expect(opened.body.pendingActions.map((entry: { id: string }) => entry.id)).toEqual([id]);
    expect((await server.api('GET', `/api/conversations/${conversationId}`, { token: 'eve' })).status).toBe(404);
    const answered = await server.api('POST', `/api/conversations/${conversationId}/actions/${id}`, {
      token: 'bob',
      body: { resolution: { type: 'question', answers: { region: 'EU' } } },
    });
    expect(answered.status).toBe(200);
    const read = await server.api('GET', `/api/requests/${id}`, { token: 'ada' });
    expect(read.body).toMatchObject({
      status: 'resolved',
      resolution: { type: 'question', answers: { region: ['EU'] } },
    });
  });

  it('a bad request is a 400 with a sentence, and nothing is stored', async () => {
    const server = await start();
    const bad = [
      { request: { kind: 'approval' } },
      { request: { kind: 'question', questions: [{ prompt: 'Missing its id' }] } },
      { request: { kind: 'url', url: 'javascript:alert(1)' } },
      { request: { kind: 'client_tool', toolName: 'pick', args: {} } },
      { request: approval, expiresAt: '2001-01-01T00:00:00Z' },
      { request: approval, unknown: true },
    ];
    for (const body of bad) {
      const refused = await server.api('POST', '/api/requests', { token: 'ada', body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.message.length).toBeGreaterThan(10);
    }
    expect((await server.api('GET', '/api/conversations', { token: 'ada' })).body.conversations).toEqual([]);
    expect((await server.api('GET', '/api/inbox', { token: 'ada' })).body.actions).toEqual([]);
  });

  it('a wait that runs out answers 202 with the request still pending; past the longest wait is a 400', async () => {
    const server = await start();
    const { id } = (await server.api('POST', '/api/requests', { token: 'ada', body: { request: approval } })).body;
    const started = Date.now();
    const waited = await server.api('GET', `/api/requests/${id}/wait?timeoutSeconds=0.3`, { token: 'ada' });
    expect(waited.status).toBe(202);
    expect(waited.body).toMatchObject({ id, status: 'pending' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const tooLong = await server.api('GET', `/api/requests/${id}/wait?timeoutSeconds=3600`, { token: 'ada' });
    expect(tooLong.status).toBe(400);
  });

  it('a request that lapses settles as expired with no turn (a wait returns it); the caller may withdraw one', async () => {
    const server = await start({ sweepIntervalMs: 100 });
    const expiresAt = new Date(Date.now() + 400).toISOString();
    const made = await server.api('POST', '/api/requests', { token: 'ada', body: { request: approval, expiresAt } });
    expect(made.body.expiresAt).toBe(expiresAt);
    const waited = await server.api('GET', `/api/requests/${made.body.id}/wait?timeoutSeconds=10`, { token: 'ada' });
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({ status: 'expired', resolution: { type: 'approval', decision: 'deny' } });
    const lapsed = await server.api('GET', `/api/conversations/${made.body.conversationId}/events`, { token: 'ada' });
    expect(lapsed.body.events.map((event: { type: string }) => event.type)).not.toContain('turn.started');
    expect(
      (await server.api('GET', `/api/conversations/${made.body.conversationId}`, { token: 'ada' })).body.conversation
        .status,
    ).toBe('idle');

    const other = (await server.api('POST', '/api/requests', { token: 'ada', body: { request: approval } })).body;
    const cancelled = await server.api('POST', `/api/conversations/${other.conversationId}/cancel`, { token: 'ada' });
    expect(cancelled.status).toBe(200);
    expect((await server.api('GET', `/api/requests/${other.id}`, { token: 'ada' })).body.status).toBe('cancelled');
  });

  it('two creates with one idempotency key give one request (201, then 200); another caller’s same key is their own', async () => {
    const server = await start();
    const body = { request: approval, assignees: ['eve'], idempotencyKey: 'deploy-1.4' };
    const first = await server.api('POST', '/api/requests', { token: 'ada', body });
    const second = await server.api('POST', '/api/requests', { token: 'ada', body });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    const bobs = await server.api('POST', '/api/requests', { token: 'bob', body });
    expect(bobs.status).toBe(201);
    expect(bobs.body.id).not.toBe(first.body.id);
    expect((await server.api('GET', '/api/inbox', { token: 'eve' })).body.actions).toHaveLength(2);
    expect((await server.api('GET', '/api/conversations', { token: 'ada' })).body.conversations).toHaveLength(1);
    // The key is the server's own business: it is not shown in the conversation's metadata.
    const conversation = await server.api('GET', `/api/conversations/${first.body.conversationId}`, { token: 'ada' });
    expect(JSON.stringify(conversation.body)).not.toContain('deploy-1.4');
  });

  it('a callbackUrl on a listed host gets the settled action, signed, again after a 503 with the same webhook-id', async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: string; status: number }> = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const status = received.length === 0 ? 503 : 200;
        received.push({ headers: request.headers, body, status });
        response.writeHead(status).end();
      });
    });
    receivers.push(receiver);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    const server = await start({
      notify: {
        callbackHosts: [`127.0.0.1:${port}`],
        callbackSecret: secret,
        pollIntervalMs: 50,
        retry: { firstDelayMs: 50, maxDelayMs: 100, giveUpAfterMs: 60_000 },
      },
    });
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: approval, callbackUrl: `http://127.0.0.1:${port}/heed/callback?token=t1` },
    });
    expect(made.status).toBe(201);
    const { id, conversationId } = made.body;
    // The callback is the server's own business: its URL is not shown with the conversation.
    const conversation = await server.api('GET', `/api/conversations/${conversationId}`, { token: 'ada' });
    expect(JSON.stringify(conversation.body)).not.toContain('callback');
    expect(received).toEqual([]);

    await server.api('POST', `/api/conversations/${conversationId}/actions/${id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'deny', comment: 'Not today.' } },
    });
    const deadline = Date.now() + 10_000;
    while (received.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(received.map((entry) => entry.status)).toEqual([503, 200]);
    const [failed, delivered] = received;
    expect(delivered.headers['webhook-id']).toBe(failed.headers['webhook-id']);
    const payload = new Webhook(secret).verify(delivered.body, {
      'webhook-id': String(delivered.headers['webhook-id']),
      'webhook-timestamp': String(delivered.headers['webhook-timestamp']),
      'webhook-signature': String(delivered.headers['webhook-signature']),
    }) as { type: string; data: { action: Record<string, unknown> } };
    expect(payload.type).toBe('action.resolved');
    expect(payload.data.action).toMatchObject({
      id,
      status: 'resolved',
      resolution: { type: 'approval', decision: 'deny', comment: 'Not today.' },
    });
  });

  it('a callbackUrl anywhere but a listed host and port is refused with 400 callback_not_allowed, and nothing is stored', async () => {
    const unlisted = await start();
    const none = await unlisted.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: approval, callbackUrl: 'https://hooks.example.com/heed' },
    });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('callback_not_allowed');

    const server = await start({
      notify: { callbackHosts: ['127.0.0.1:4999', 'hooks.example.com'], callbackSecret: secret },
    });
    for (const callbackUrl of [
      'http://127.0.0.1:5000/heed',
      'http://169.254.169.254/latest/meta-data/',
      'https://internal.example.com/heed',
      'https://hooks.example.com.evil.test/heed',
      'https://user:pass@hooks.example.com/heed',
      'ftp://hooks.example.com/heed',
      'not a url',
    ]) {
      const refused = await server.api('POST', '/api/requests', {
        token: 'ada',
        body: { request: approval, callbackUrl },
      });
      expect(refused.status, callbackUrl).toBe(400);
      expect(refused.body.error.code).toBe('callback_not_allowed');
    }
    expect((await server.api('GET', '/api/conversations', { token: 'ada' })).body.conversations).toEqual([]);
    // A listed host is taken (on any port when listed without one).
    const allowed = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: approval, callbackUrl: 'https://hooks.example.com:8443/heed' },
    });
    expect(allowed.status).toBe(201);
  });

  it('on SQLite: a URL request shows in its assignee’s inbox, one key gives one request, and the assignee answers it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heed-requests-'));
    try {
      const server = await start({ store: sqliteStore({ path: join(dir, 'requests.db') }) });
      const body = {
        request: { kind: 'url', url: 'https://example.com/sign', title: 'Sign the contract' },
        assignees: ['bob'],
        idempotencyKey: 'contract-1',
      };
      const first = await server.api('POST', '/api/requests', { token: 'ada', body });
      const second = await server.api('POST', '/api/requests', { token: 'ada', body });
      expect([first.status, second.status]).toEqual([201, 200]);
      expect(second.body.id).toBe(first.body.id);
      const inbox = await server.api('GET', '/api/inbox', { token: 'bob' });
      expect(inbox.body.actions.map((entry: { id: string }) => entry.id)).toEqual([first.body.id]);
      const answered = await server.api(
        'POST',
        `/api/conversations/${first.body.conversationId}/actions/${first.body.id}`,
        { token: 'bob', body: { resolution: { type: 'url', decision: 'accept' } } },
      );
      expect(answered.body.status).toBe('completed');
      const waited = await server.api('GET', `/api/requests/${first.body.id}/wait?timeoutSeconds=1`, { token: 'ada' });
      expect(waited.status).toBe(200);
      expect(waited.body).toMatchObject({ status: 'resolved', resolvedBy: 'bob' });
      await servers.splice(servers.indexOf(server), 1)[0].close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on SQLite: a bad answer is refused (400, still pending), a restart keeps the request, the answer settles it once, a replay is 409', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heed-requests-'));
    try {
      const path = join(dir, 'requests.db');
      const first = await start({ store: sqliteStore({ path }) });
      const made = (await first.api('POST', '/api/requests', { token: 'ada', body: { request: approval } })).body;
      const route = `/api/conversations/${made.conversationId}/actions/${made.id}`;
      const bad = await first.api('POST', route, {
        token: 'ada',
        body: { resolution: { type: 'approval', decision: 'maybe' } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_resolution');
      expect((await first.api('GET', `/api/requests/${made.id}`, { token: 'ada' })).body.status).toBe('pending');
      await servers.splice(servers.indexOf(first), 1)[0].close();

      const second = await start({ store: sqliteStore({ path }) });
      expect((await second.api('GET', `/api/requests/${made.id}`, { token: 'ada' })).body.status).toBe('pending');
      const allow = { type: 'approval', decision: 'allow', comment: 'Ship it.' };
      expect((await second.api('POST', route, { token: 'ada', body: { resolution: allow } })).status).toBe(200);
      const replay = await second.api('POST', route, {
        token: 'ada',
        body: { resolution: { type: 'approval', decision: 'deny' } },
      });
      expect(replay.status).toBe(409);
      expect(replay.body.error.details.resolution).toMatchObject({ decision: 'allow', comment: 'Ship it.' });
      const settled = await second.api('GET', `/api/requests/${made.id}`, { token: 'ada' });
      expect(settled.body).toMatchObject({ status: 'resolved', resolution: { decision: 'allow' } });
      await servers.splice(servers.indexOf(second), 1)[0].close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a request that lapses under onTimeout cancel settles as expired with no answer for anyone, and a wait returns it', async () => {
    let now = new Date('2026-04-01T08:00:00Z');
    const server = await start({ hitl: { onTimeout: 'cancel', timeoutMinutes: 30 }, now: () => now });
    const made = (await server.api('POST', '/api/requests', { token: 'ada', body: { request: approval } })).body;
    expect(made.expiresAt).toBe('2026-04-01T08:30:00.000Z');
    now = new Date('2026-04-01T08:31:00Z');
    expect((await server.heed.expireDue()).lapsed).toBe(1);
    const waited = await server.api('GET', `/api/requests/${made.id}/wait?timeoutSeconds=1`, { token: 'ada' });
    expect(waited.status).toBe(200);
    expect(waited.body.status).toBe('expired');
    expect(waited.body.resolution?.decision).not.toBe('allow');
  });

  it('heed/client: requests.create, get and wait', async () => {
    const server = await start();
    const ada = createClient({ baseUrl: server.url, token: 'ada' });
    const bob = createClient({ baseUrl: server.url, token: 'bob' });
    const input = {
      request: { kind: 'url' as const, url: 'https://example.com/sign', title: 'Sign the contract' },
      assignees: ['bob'],
      idempotencyKey: 'contract-9',
    };
    const made = await ada.requests.create(input);
    expect(made.created).toBe(true);
    expect((await ada.requests.create(input)).created).toBe(false);
    expect((await bob.requests.get(made.action.id)).status).toBe('pending');
    expect(await ada.requests.wait(made.action.id, { timeoutSeconds: 0.1 })).toMatchObject({ settled: false });
    await bob.answer(made.action.conversationId, made.action.id, { type: 'url', decision: 'accept' });
    const waited = await ada.requests.wait(made.action.id, { timeoutSeconds: 5 });
    expect(waited).toMatchObject({ settled: true, action: { status: 'resolved', resolution: { decision: 'accept' } } });
  });
});
