import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, tokens, type TestServer } from '../../test/http-fixtures.js';
import type { HeedConfig } from '../config.js';
import { mailCapture, type CapturedMail } from '../notify/mail-capture.js';

/**
 * Issue 38, attacked over the socket as an outside caller would: idempotency keys of `POST /api/requests`
 * belong to one caller, a request's title is bounded, a caller's metadata cannot carry Heed's own `heed:`
 * keys, and an answer link opens only as it was signed.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const people = { ...tokens, ci: { userId: 'ci-job' } };
const servers: TestServer[] = [];
let dir: string | undefined;
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function start(config: Partial<HeedConfig> = {}) {
  const server = await startServer({ auth: { tokens: people }, ...config });
  servers.push(server);
  return server;
}

/** One call over the socket (`server.url`), as a client elsewhere makes it. */
async function call(
  server: TestServer,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Any, text };
}

const deploy = { kind: 'approval', title: 'Deploy 1.4 to production?', args: { version: '1.4' } };
const allow = { resolution: { type: 'approval', decision: 'allow' } };

describe('idempotency keys of POST /api/requests belong to one caller', () => {
  it('an anonymous caller cannot take the key a CI job will use: its keyed create is refused, and the job’s own request is fresh', async () => {
    const server = await start();
    const key = 'deploy-1.4';

    // The attacker, anonymous, sends the key first, meaning to answer whatever it names.
    const taken = await call(server, 'POST', '/api/requests', { body: { request: deploy, idempotencyKey: key } });
    expect(taken.status).toBe(400);
    expect(taken.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'idempotencyKey' } });
    expect(taken.body.error.message).toContain('signed-in caller');

    // An anonymous CI job with the same key is refused the same way: no shared key space exists to meet in.
    const anonymousJob = await call(server, 'POST', '/api/requests', {
      body: { request: deploy, idempotencyKey: key },
    });
    expect(anonymousJob.status).toBe(400);

    // A signed-in job's key is its own: a fresh request, pending, that a wait does not see answered.
    const job = await call(server, 'POST', '/api/requests', {
      token: 'ci',
      body: { request: deploy, idempotencyKey: key },
    });
    expect(job.status).toBe(201);
    expect(job.body).toMatchObject({ status: 'pending' });
    expect(job.body.resolution ?? null).toBeNull();
    const waited = await call(server, 'GET', `/api/requests/${job.body.id}/wait?timeoutSeconds=0`, { token: 'ci' });
    expect(waited.status).toBe(202);

    // The attacker, again anonymous, still gets nothing of it, and cannot answer it.
    const again = await call(server, 'POST', '/api/requests', { body: { request: deploy, idempotencyKey: key } });
    expect(again.status).toBe(400);
    expect(again.text).not.toContain(job.body.id);
    const answered = await call(
      server,
      'POST',
      `/api/conversations/${job.body.conversationId}/actions/${job.body.id}`,
      {
        body: allow,
      },
    );
    expect(answered.status).toBe(404);

    // Another signed-in caller with the same key gets a request of its own, never the job's.
    const eve = await call(server, 'POST', '/api/requests', {
      token: 'ada',
      body: { request: deploy, idempotencyKey: key },
    });
    expect(eve.status).toBe(201);
    expect(eve.body.id).not.toBe(job.body.id);
    expect((await call(server, 'GET', `/api/requests/${job.body.id}`, { token: 'ada' })).status).toBe(404);

    // The job's second create returns its own request, still pending.
    const retried = await call(server, 'POST', '/api/requests', {
      token: 'ci',
      body: { request: deploy, idempotencyKey: key },
    });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: job.body.id, status: 'pending' });
  });
});

describe('what a request and its metadata may carry', () => {
  it('a request title longer than a conversation title is refused with a sentence, and nothing is stored', async () => {
    const server = await start();
    const long = await call(server, 'POST', '/api/requests', {
      token: 'ada',
      body: { request: { ...deploy, title: 'Deploy? '.repeat(20_000) } },
    });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'body.request.title' } });
    expect(long.body.error.message).toContain('at most 120 characters');
    const url = await call(server, 'POST', '/api/requests', {
      token: 'ada',
      body: { request: { kind: 'url', url: 'https://example.com/sign', title: 'x'.repeat(121) } },
    });
    expect(url.status).toBe(400);
    const fits = await call(server, 'POST', '/api/requests', {
      token: 'ada',
      body: { request: { ...deploy, title: 'x'.repeat(120) } },
    });
    expect(fits.status).toBe(201);
    expect((await call(server, 'GET', '/api/conversations', { token: 'ada' })).body.conversations).toHaveLength(1);
  });

  it('metadata carrying Heed’s own keys (heed:a2a, heed:request) is refused on a conversation and on a request', async () => {
    const server = await start();
    const push = { 'heed:a2a': { push: [{ id: 'p1', task: 'm_1', url: 'https://attacker.example/hook' }] } };
    const callback = { 'heed:request': { callbackUrl: 'https://attacker.example/cb' } };
    for (const metadata of [push, callback]) {
      const conversation = await call(server, 'POST', '/api/conversations', {
        token: 'ada',
        body: { agent: 'support', metadata },
      });
      expect(conversation.status).toBe(400);
      expect(conversation.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'metadata' } });
      expect(conversation.body.error.message).toContain('"heed:" are Heed\'s own');
      const request = await call(server, 'POST', '/api/requests', {
        token: 'ada',
        body: { request: deploy, metadata },
      });
      expect(request.status).toBe(400);
      expect(request.body.error.code).toBe('invalid_request');
    }
    expect((await call(server, 'GET', '/api/conversations', { token: 'ada' })).body.conversations).toHaveLength(0);
    // Other keys, even with a colon, are the caller's.
    const fine = await call(server, 'POST', '/api/conversations', {
      token: 'ada',
      body: { agent: 'support', metadata: { 'app:ticket': 'OPS-7' } },
    });
    expect(fine.status).toBe(201);
  });
});

describe('an answer link opens only as it was signed', () => {
  it('a mailed link with one character appended (or its unread last bits changed) opens nothing and answers nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'heed-link-exact-'));
    const mails: CapturedMail[] = [];
    const server = await start({
      notify: {
        publicUrl: 'https://heed.example.com',
        pollIntervalMs: 20,
        email: {
          transport: mailCapture({ dir, onMail: (mail) => mails.push(mail) }),
          from: 'heed@example.com',
          to: () => 'grace@example.com',
        },
      },
    });
    const made = await call(server, 'POST', '/api/requests', { token: 'ada', body: { request: deploy } });
    expect(made.status).toBe(201);
    await expect.poll(() => mails.filter((mail) => mail.page).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const token = mails.find((mail) => mail.page)!.page!.split('/a/')[1];

    const altered = [`${token}A`, `${token}x`, `${token}-`];
    // When the signed bytes do not fill the last character, its low bits are not read: flip one of them.
    if (Buffer.from(token, 'base64url').length % 3 !== 0) {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      altered.push(`${token.slice(0, -1)}${alphabet[alphabet.indexOf(token.at(-1)!) ^ 1]}`);
    }
    for (const tampered of altered) {
      expect((await call(server, 'GET', `/api/links/${tampered}`)).status).toBe(404);
      expect((await call(server, 'POST', `/api/links/${tampered}`, { body: allow })).status).toBe(404);
    }
    expect((await call(server, 'GET', `/api/requests/${made.body.id}`, { token: 'ada' })).body.status).toBe('pending');
    // The link as mailed still opens.
    expect((await call(server, 'GET', `/api/links/${token}`)).status).toBe(200);
  });
});

describe('an answer link opens its action, not its conversation', () => {
  it('a mail recipient holding an ownerless request’s action id can neither derive its conversation nor answer it in a batch', async () => {
    dir = mkdtempSync(join(tmpdir(), 'heed-link-reach-'));
    const mails: CapturedMail[] = [];
    const server = await start({
      notify: {
        publicUrl: 'https://heed.example.com',
        pollIntervalMs: 20,
        email: {
          transport: mailCapture({ dir, onMail: (mail) => mails.push(mail) }),
          from: 'heed@example.com',
          to: () => 'grace@example.com',
        },
      },
    });
    // An anonymous backend asks; its request lives in an ownerless conversation, guarded by that id alone.
    const made = await call(server, 'POST', '/api/requests', { body: { request: deploy } });
    expect(made.status).toBe(201);
    await expect.poll(() => mails.filter((mail) => mail.page).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const token = mails.find((mail) => mail.page)!.page!.split('/a/')[1];

    // The recipient reads the link: the action's id, and nothing naming the conversation.
    const link = await call(server, 'GET', `/api/links/${token}`);
    expect(link.status).toBe(200);
    const actionId = link.body.action.id as string;
    expect(link.text).not.toContain(made.body.conversationId);
    // The conversation's id does not follow from the action's.
    const guessed = `c_${actionId.slice(2)}`;
    expect(guessed).not.toBe(made.body.conversationId);
    expect((await call(server, 'GET', `/api/conversations/${guessed}`)).status).toBe(404);
    expect((await call(server, 'POST', `/api/conversations/${guessed}/cancel`)).status).toBe(404);

    // A batch by action id alone finds nothing, anonymous or signed in, and tells nothing of the conversation.
    for (const who of [undefined, 'bob']) {
      const batch = await call(server, 'POST', '/api/inbox/decisions', {
        token: who,
        body: { decisions: [{ actionId, resolution: allow.resolution }] },
      });
      expect(batch.status).toBe(200);
      expect(batch.body.results[0]).toMatchObject({ actionId, status: 404, body: { error: { code: 'not_found' } } });
      expect(batch.text).not.toContain(made.body.conversationId);
    }
    const still = await call(server, 'GET', `/api/conversations/${made.body.conversationId}`);
    expect(still.body.conversation.status).toBe('requires_action');
    expect(still.body.messages).toHaveLength(1);

    // The owner's batch answers its own request and gets the action back, nothing more of the conversation.
    const own = await call(server, 'POST', '/api/requests', { token: 'ada', body: { request: deploy } });
    const answered = await call(server, 'POST', '/api/inbox/decisions', {
      token: 'ada',
      body: { decisions: [{ actionId: own.body.id, resolution: allow.resolution }] },
    });
    expect(answered.body.results[0]).toMatchObject({
      actionId: own.body.id,
      status: 200,
      body: { id: own.body.id, status: 'resolved', resolution: { decision: 'allow' } },
    });
    expect(answered.body.results[0].body.messages).toBeUndefined();
  });
});

describe('a long poll takes a stream slot', () => {
  it('past limits.streamsPerCaller open waits, another wait or stream gets 429 rate_limited; a wait that ends gives its slot back', async () => {
    const server = await start({ limits: { streamsPerCaller: 2 } });
    const made = await call(server, 'POST', '/api/requests', { token: 'ci', body: { request: deploy } });
    expect(made.status).toBe(201);
    const wait = (seconds: number, signal?: AbortSignal) =>
      fetch(`${server.url}/api/requests/${made.body.id}/wait?timeoutSeconds=${seconds}`, {
        headers: { authorization: 'Bearer ci' },
        signal,
      });

    // Two waits held open, as a client holding thousands would begin.
    const [first, second] = [new AbortController(), new AbortController()];
    const pending = [first, second].map((controller) => wait(60, controller.signal).catch(() => undefined));
    // Once the server holds both, a third (even one that would answer at once) is refused.
    await expect.poll(async () => (await wait(0)).status).toBe(429);
    const refused = await wait(0);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect((await refused.json()).error).toMatchObject({
      code: 'rate_limited',
      details: { limit: 'streamsPerCaller', max: 2 },
    });
    // The slots are the streams' own: the caller's event streams are counted with them.
    const stream = await fetch(`${server.url}/api/inbox/stream`, { headers: { authorization: 'Bearer ci' } });
    expect(stream.status).toBe(429);
    await stream.body?.cancel();

    // One wait goes away: its slot comes back.
    first.abort();
    await expect.poll(async () => (await wait(0)).status).toBe(202);
    second.abort();
    await Promise.all(pending);
  });
});
