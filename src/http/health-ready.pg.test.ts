import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from '../../test/pg.js';
import { startProxy, type Proxy } from '../../test/faults/proxy.js';
import { createHeed, type Heed } from '../heed.js';
import { postgresStore } from '../store/postgres/postgres-store.js';
import { scriptedModel } from '../testing/index.js';
import { createApp, type HeedApp } from './app.js';

/**
 * `GET /health/ready` against PostgreSQL behind a TCP proxy the test controls: 503 `store_unavailable`
 * while the database is out of reach (connections reset, or traffic swallowed past the 2 s deadline),
 * 200 once it is back, with no restart; `GET /health` answers 200 throughout.
 */
let database: TestDatabase | undefined;
let proxy: Proxy | undefined;
let heed: Heed | undefined;
let app: HeedApp;

describe.skipIf(!pgServer)(`GET /health/ready on PostgreSQL${pgServer ? '' : ` (${pgSkipReason})`}`, () => {
  beforeAll(async () => {
    database = await freshDatabase();
    const target = new URL(database.url);
    proxy = await startProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.port = String(proxy.port);
    heed = createHeed({
      sweepIntervalMs: 0,
      store: postgresStore({ connectionString: target.toString(), max: 2 }),
      agents: [{ name: 'echo', model: scriptedModel(() => ({ text: 'hi' })) }],
    });
    await heed.ready();
    app = createApp(heed);
  });
  afterAll(async () => {
    proxy?.mode('pass');
    await heed?.close();
    await proxy?.close();
    await database?.drop();
  });

  const ready = async () => {
    const started = performance.now();
    const response = await app.request('/health/ready');
    return { status: response.status, body: await response.json(), ms: performance.now() - started };
  };

  it('is 200 while the store answers, 503 store_unavailable while it cannot be reached, 200 again once it is back', async () => {
    expect(await ready()).toMatchObject({ status: 200, body: { ok: true } });

    proxy!.mode('reset');
    const refused = await ready();
    expect(refused).toMatchObject({ status: 503, body: { error: { code: 'store_unavailable' } } });
    expect((await app.request('/health')).status).toBe(200);

    proxy!.mode('pass');
    await expect.poll(async () => (await ready()).status).toBe(200);

    // Swallowed traffic: no error comes, so the 2 s deadline answers (well before the pool's own 10 s).
    proxy!.mode('swallow');
    const silent = await ready();
    expect(silent).toMatchObject({ status: 503, body: { error: { code: 'store_unavailable' } } });
    expect(silent.ms).toBeGreaterThanOrEqual(1900);
    expect(silent.ms).toBeLessThan(5000);
    expect((await app.request('/health')).status).toBe(200);

    proxy!.mode('pass');
    await expect.poll(async () => (await ready()).status).toBe(200);
  });
});
