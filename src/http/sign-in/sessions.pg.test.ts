import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, startProvider, type TestProvider } from '../../../test/oidc.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { freshDatabase, pgSkipReason, pgServer, type TestDatabase } from '../../../test/pg.js';
import { postgresStore } from '../../store/postgres/postgres-store.js';

/** Two Heed instances on one PostgreSQL database share signed-in sessions (sign-in, use, sign-out). */

let database: TestDatabase | undefined;
let provider: TestProvider;
const servers: TestServer[] = [];

beforeAll(async () => {
  if (!pgServer) return;
  database = await freshDatabase('heed_sessions');
  provider = await startProvider({ people: { ada: { groups: ['finance'] } }, autoConsent: true });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await provider?.close();
  await database?.drop();
});

async function instance(): Promise<TestServer> {
  const server = await startServer({
    store: postgresStore({ connectionString: database!.url, schema: 'sessions', max: 4 }),
    auth: {
      tokens: { ada: 'ada' },
      oidc: { issuer: provider.issuer, clientId: 'heed', clientSecret: 'heed-test-secret' },
    },
  });
  servers.push(server);
  return server;
}

describe.skipIf(!pgServer)(`sessions on PostgreSQL ${pgServer ? '' : `(${pgSkipReason})`}`, () => {
  it('a session made on one instance is known on the other, and a sign-out on either ends it on both', async () => {
    const a = await instance();
    const b = await instance();
    provider.register(a.url);
    const browser = new Browser();
    const { response } = await browser.signIn(a.url, 'ada');
    expect(response.status).toBe(302);
    const cookie = browser.cookie(new URL(a.url).origin, 'heed_session')!;
    browser.setCookie(new URL(b.url).origin, 'heed_session', cookie);

    const onB = await (await browser.fetch(`${b.url}/auth/session`)).json();
    expect(onB).toMatchObject({ signedIn: true, userId: 'ada', groups: ['finance'] });
    const made = await browser.fetch(`${b.url}/api/conversations`, {
      method: 'POST',
      body: JSON.stringify({ agent: 'support' }),
      headers: { 'content-type': 'application/json', 'x-heed-csrf': onB.csrf },
    });
    expect(made.status).toBe(201);

    const out = await browser.fetch(`${b.url}/auth/logout`, { method: 'POST', headers: { 'x-heed-csrf': onB.csrf } });
    expect(out.status).toBe(200);
    const later = new Browser();
    later.setCookie(new URL(a.url).origin, 'heed_session', cookie);
    expect((await (await later.fetch(`${a.url}/auth/session`)).json()).signedIn).toBe(false);
  });

  it('a personal token made on one instance works on the other, and revoked on either it stops on both at once', async () => {
    const [a, b] = servers.length >= 2 ? servers : [await instance(), await instance()];
    const made = await a.api('POST', '/api/me/tokens', { token: 'ada', body: { name: 'cli', scopes: ['read'] } });
    expect(made.status).toBe(201);
    expect((await b.api('GET', '/api/me', { token: made.body.token })).body.userId).toBe('ada');
    expect((await b.api('DELETE', `/api/me/tokens/${made.body.id}`, { token: 'ada' })).status).toBe(204);
    expect((await a.api('GET', '/api/me', { token: made.body.token })).status).toBe(401);
  });
});
