import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../config-schema.js';
import { createHeed } from '../heed.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { scriptedModel } from '../testing/index.js';
import { createApp } from './app.js';

/**
 * CORS as a browser meets it: the preflight (`OPTIONS` with `Origin` and `Access-Control-Request-*`)
 * and then the call itself, both with the `Host` check on (a loopback listen address) and sign-in
 * required, so the preflight is shown to pass both.
 */
const page = 'http://127.0.0.1:5173';
const heed = createHeed({
  agents: [{ name: 'support', model: scriptedModel(() => ({ text: 'Hello.' })) }],
  store: memoryStore(),
  sweepIntervalMs: 0,
  limits: { conversationsPerMinute: 1 },
});
const guarded = { auth: { tokens: { 'tok-ada': 'ada' }, required: true }, listenAddress: '127.0.0.1' };
const withCors = createApp(heed, { ...guarded, cors: { origins: [page] } });
const without = createApp(heed, guarded);
afterAll(() => heed.close());

const preflight = (app: typeof withCors, path: string, origin = page, method = 'POST') =>
  app.request(`http://127.0.0.1:3000${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type',
    },
  });

describe('cors: { origins }', () => {
  it('answers the preflight of a listed origin before sign-in and the routes: token, JSON bodies, and the headers a client reads', async () => {
    for (const path of [
      '/api/conversations',
      '/api/ai-sdk/chat/support',
      '/api/conversations/c_x/events/stream',
      '/health',
    ]) {
      const response = await preflight(withCors, path);
      expect([path, response.status]).toEqual([path, 204]);
      expect(response.headers.get('access-control-allow-origin')).toBe(page);
      expect(response.headers.get('access-control-allow-credentials')).toBe('true');
      expect(response.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'last-event-id']),
      );
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    }
  });

  it("gives a listed origin's calls, their errors and their streams the headers; Retry-After is readable", async () => {
    const call = (path: string, init: RequestInit = {}) =>
      withCors.request(`http://127.0.0.1:3000${path}`, {
        ...init,
        headers: { origin: page, authorization: 'Bearer tok-ada', ...init.headers },
      });
    const created = await call('/api/conversations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'support' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(page);
    const { id } = (await created.json()) as { id: string };

    const limited = await call('/api/conversations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'support' }),
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('access-control-allow-origin')).toBe(page);
    expect(limited.headers.get('access-control-expose-headers')).toContain('Retry-After');

    const unsigned = await withCors.request('http://127.0.0.1:3000/api/agents', { headers: { origin: page } });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('access-control-allow-origin')).toBe(page);

    const controller = new AbortController();
    const stream = await call(`/api/conversations/${id}/events/stream`, { signal: controller.signal });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('access-control-allow-origin')).toBe(page);
    controller.abort();
    await stream.body?.cancel().catch(() => undefined);
  });

  it('gives any other origin no CORS headers, and without the setting a preflight is refused as before', async () => {
    const other = await preflight(withCors, '/api/conversations', 'http://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const call = await withCors.request('http://127.0.0.1:3000/api/agents', {
      headers: { origin: 'http://evil.example', authorization: 'Bearer tok-ada' },
    });
    expect(call.headers.get('access-control-allow-origin')).toBeNull();

    const off = await preflight(without, '/api/conversations');
    // Sign-in is required here, so the preflight (which carries no token) meets the 401 it always met.
    expect(off.status).toBe(401);
    expect(off.headers.get('access-control-allow-origin')).toBeNull();
    // A rebound name is still refused first, preflight or not.
    const rebound = await withCors.request('http://evil.example/api/conversations', {
      method: 'OPTIONS',
      headers: { origin: page },
    });
    expect(rebound.status).toBe(421);
  });

  it('takes exact origins only; anything else stops the start naming the entry', () => {
    expect(() =>
      checkConfig({ agents: [], cors: { origins: ['https://app.example.com', 'http://localhost:5173'] } }),
    ).not.toThrow();
    for (const origin of [
      'https://app.example.com/',
      'app.example.com',
      '*',
      'https://*.example.com',
      'https://app.example.com/path',
    ]) {
      expect(() => checkConfig({ agents: [], cors: { origins: [origin] } })).toThrow(
        /cors\.origins\[0\]: expected an origin/,
      );
    }
    expect(() => checkConfig({ agents: [], cors: { origin: ['https://app.example.com'] } })).toThrow(/cors\.origin/);
  });
});
