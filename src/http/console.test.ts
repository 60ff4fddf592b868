import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHeed } from '../heed.js';
import { scriptedModel } from '../testing/index.js';
import { createApp } from './app.js';

const dir = mkdtempSync(join(tmpdir(), 'heed-console-'));
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Heed</title>');
writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
writeFileSync(join(dir, '..', `${dir.split('/').pop()}-outside.txt`), 'outside the build');

const heed = createHeed({
  sweepIntervalMs: 0,
  agents: [{ name: 'echo', model: scriptedModel(() => ({ text: 'hi' })) }],
});
const app = createApp(heed, { consoleDir: dir, auth: { required: true, tokens: { t: { userId: 'ada' } } } });

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(dir, '..', `${dir.split('/').pop()}-outside.txt`), { force: true });
});

describe('the web console at /', () => {
  it('serves index.html for the root and for any page path, with a strict content security policy', async () => {
    for (const path of ['/', '/inbox', '/c/c_123', '/sign-in']) {
      const response = await app.request(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toContain('<title>Heed</title>');
    }
  });

  it('serves built assets with their type, cached for good', async () => {
    const response = await app.request('/assets/index-abc.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toContain('immutable');
    expect(await response.text()).toBe('console.log(1)');
  });

  it('never shadows the API or health, and answers a missing file or a path outside the build with a 404', async () => {
    expect((await app.request('/health')).status).toBe(200);
    const api = await app.request('/api/nothing-here', { headers: { authorization: 'Bearer t' } });
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await app.request('/api/agents')).status).toBe(401);
    for (const path of [
      '/assets/missing.js',
      `/..%2f${dir.split('/').pop()}-outside.txt`,
      `/%2e%2e/${dir.split('/').pop()}-outside.txt`,
    ]) {
      const response = await app.request(path);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });

  it('answers no path under /health, /api or /auth with its page (but /auth/device): an unknown one is a JSON 404', async () => {
    const ready = await app.request('/health/ready');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true });
    for (const path of ['/health/x', '/health/', '/api/x', '/api', '/auth/x', '/auth', '/auth/x/y', '/health%2Fx']) {
      for (const method of ['GET', 'HEAD']) {
        const response = await app.request(path, { method, headers: { authorization: 'Bearer t' } });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.headers.get('content-type'), `${method} ${path}`).toContain('application/json');
        if (method === 'GET') expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
      }
    }
    // But the device approval page a terminal's sign-in links to, which is the console's by design.
    const device = await app.request('/auth/device');
    expect(device.status).toBe(200);
    expect(device.headers.get('content-type')).toContain('text/html');
    expect((await app.request('/auth/device/other')).status).toBe(404);
  });

  it('is off unless a console directory is given', async () => {
    const bare = createApp(heed);
    expect((await bare.request('/')).status).toBe(404);
  });
});
