import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../cli/serve.js';
import type { HeedConfig } from '../config.js';
import { createHeed, engineOf } from '../heed.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { scriptedModel } from '../testing/index.js';
import { createApp } from './app.js';

/** A request with a chosen `Host` header (fetch does not let one set it), as a rebound DNS name sends it. */
function withHost(
  url: string,
  host: string,
  method = 'GET',
  path = '/api/agents',
  body?: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const sent = request(
      {
        host: target.hostname,
        port: target.port,
        method,
        path,
        headers: {
          host,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: text }));
      },
    );
    sent.on('error', reject);
    sent.end(payload);
  });
}

const consoleDir = mkdtempSync(join(tmpdir(), 'heed-hosts-'));
writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>Heed</title>');

const config = (extra: Partial<HeedConfig> = {}): HeedConfig => ({
  agents: [{ name: 'echo', model: scriptedModel(() => ({ text: 'Echo.' })) }],
  store: memoryStore(),
  sweepIntervalMs: 0,
  ...extra,
});

afterAll(() => rmSync(consoleDir, { recursive: true, force: true }));

// DNS rebinding: a page at evil.example points its name at 127.0.0.1 and then calls "its own" origin,
// reaching a server on loopback with `Host: evil.example`. Such a request must get nothing.
describe('Host check on a server listening on loopback', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve({ config: config(), port: 0, log: () => undefined, console: consoleDir });
  });
  afterAll(() => server.close());

  it('refuses a foreign Host with 421 host_not_allowed on every route, the console and /health included', async () => {
    for (const path of ['/api/agents', '/health', '/', '/inbox', '/api/openapi.json']) {
      const refused = await withHost(server.url, 'evil.example', 'GET', path);
      expect(refused.status, path).toBe(421);
      const error = JSON.parse(refused.body).error;
      expect(error.code).toBe('host_not_allowed');
      expect(error.message).toContain('allowedHosts');
      expect(error.message).toContain('evil.example');
    }
    const port = new URL(server.url).port;
    expect((await withHost(server.url, `evil.example:${port}`)).status).toBe(421);
    // The page cannot start a conversation or answer what waits either.
    const created = await withHost(server.url, `evil.example:${port}`, 'POST', '/api/conversations', { agent: 'echo' });
    expect(created.status).toBe(421);
    expect(await engineOf(server.heed).store.listConversations({})).toEqual([]);
  });

  it('answers to loopback names and addresses, with any port', async () => {
    const port = new URL(server.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      `localhost:${port}`,
      'LOCALHOST',
      `app.localhost:${port}`,
      '127.1.2.3',
      `[::1]:${port}`,
      'localhost.',
    ]) {
      expect((await withHost(server.url, host)).status, host).toBe(200);
    }
    for (const host of [
      'localhost.evil.example',
      '128.0.0.1',
      'evil.localhost.example',
      '127.0.0.1.evil.example',
      '[::2]',
      '10.0.0.1',
    ]) {
      expect((await withHost(server.url, host)).status, host).toBe(421);
    }
  });
});

describe('allowedHosts', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve({
      config: config({ allowedHosts: ['heed.example.com', '.corp.example'] }),
      port: 0,
      log: () => undefined,
      console: false,
    });
  });
  afterAll(() => server.close());

  it('adds names (a leading dot: the name and its subdomains) to the loopback ones', async () => {
    for (const host of ['heed.example.com', 'HEED.example.com:443', 'corp.example', 'a.b.corp.example', 'localhost']) {
      expect((await withHost(server.url, host)).status, host).toBe(200);
    }
    for (const host of ['example.com', 'x.heed.example.com', 'evilcorp.example', 'evil.example']) {
      expect((await withHost(server.url, host)).status, host).toBe(421);
    }
  });

  it('true allows any Host', async () => {
    const open = await serve({ config: config({ allowedHosts: true }), port: 0, log: () => undefined, console: false });
    try {
      expect((await withHost(open.url, 'evil.example')).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('a malformed allowedHosts stops the start, naming it', async () => {
    // A JavaScript config can hold what the type refuses.
    const malformed = Object.assign(config(), { allowedHosts: 'heed.example.com' });
    const failed = await serve({ config: malformed, port: 0, log: () => undefined }).catch(
      (thrown: Error) => thrown.message,
    );
    expect(failed).toContain('allowedHosts: expected a list of host names, or true to allow any');
  });
});

describe('listening beyond loopback', () => {
  it('warns at start when anonymous callers are let in, and checks Host only against a listed allowedHosts', async () => {
    const lines: string[] = [];
    const open = await serve({
      config: config(),
      port: 0,
      host: '0.0.0.0',
      log: (line) => lines.push(line),
      console: false,
    });
    try {
      expect(lines.join('\n')).toContain('Warning: listening beyond loopback with anonymous access allowed');
      expect((await withHost(open.url, 'heed.example.com')).status).toBe(200);
    } finally {
      await open.close();
    }
    const quiet: string[] = [];
    const listed = await serve({
      config: config({ allowedHosts: ['heed.example.com'], auth: { tokens: { t: 'ada' }, required: true } }),
      port: 0,
      host: '0.0.0.0',
      log: (line) => quiet.push(line),
      console: false,
    });
    try {
      expect(quiet.join('\n')).not.toContain('Warning');
      expect((await withHost(listed.url, 'heed.example.com', 'GET', '/health')).status).toBe(200);
      expect((await withHost(listed.url, 'evil.example', 'GET', '/health')).status).toBe(421);
    } finally {
      await listed.close();
    }
  });
});

describe('Host check of createApp', () => {
  const heed = createHeed({
    agents: [{ name: 'echo', model: scriptedModel(() => ({ text: 'hi' })) }],
    sweepIntervalMs: 0,
  });
  afterAll(() => heed.close());
  const get = (app: ReturnType<typeof createApp>, host: string) => app.request('/health', { headers: { host } });

  it('is off for an app embedded elsewhere unless it is told the address or given allowedHosts', async () => {
    expect((await get(createApp(heed), 'evil.example')).status).toBe(200);
    expect((await get(createApp(heed, { listenAddress: '0.0.0.0' }), 'evil.example')).status).toBe(200);
    expect((await get(createApp(heed, { listenAddress: '127.0.0.1' }), 'evil.example')).status).toBe(421);
    expect((await get(createApp(heed, { listenAddress: '::1' }), 'evil.example')).status).toBe(421);
  });

  it('beyond loopback, allowedHosts checks names and lets IP addresses through (an address cannot be rebound)', async () => {
    const app = createApp(heed, { listenAddress: '0.0.0.0', allowedHosts: ['heed.example.com'] });
    expect((await get(app, 'heed.example.com')).status).toBe(200);
    expect((await get(app, '10.1.2.3:3000')).status).toBe(200);
    expect((await get(app, '[2001:db8::1]:3000')).status).toBe(200);
    expect((await get(app, 'evil.example')).status).toBe(421);
  });
});
