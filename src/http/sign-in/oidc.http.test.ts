import { afterEach, describe, expect, it } from 'vitest';
import { Browser, startProvider, type Person, type TestProvider } from '../../../test/oidc.js';
import { collectStream, startServer, type TestServer } from '../../../test/http-fixtures.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { AuthConfig, HeedConfig, OidcConfig } from '../../config.js';
import { sqliteStore } from '../../store/sqlite/sqlite-store.js';

/** OpenID Connect sign-in against a real provider (oidc-provider) on loopback, over real HTTP. */

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function setUp(
  options: {
    people?: Record<string, Person>;
    oidc?: Partial<OidcConfig>;
    auth?: Partial<AuthConfig>;
    config?: Partial<HeedConfig>;
  } = {},
): Promise<{ provider: TestProvider; server: TestServer; browser: Browser }> {
  const provider = await startProvider({ people: options.people, autoConsent: true });
  closing.push(() => provider.close());
  const server = await startServer({
    auth: {
      tokens: { 'tok-ada': 'ada' },
      oidc: {
        issuer: provider.issuer,
        clientId: 'heed',
        clientSecret: 'heed-test-secret',
        name: 'Example SSO',
        ...options.oidc,
      },
      ...options.auth,
    },
    ...options.config,
  });
  closing.push(() => server.close());
  provider.register(server.url);
  return { provider, server, browser: new Browser() };
}

async function session(browser: Browser, server: TestServer) {
  return (await browser.fetch(`${server.url}/auth/session`)).json();
}

describe('sign-in with OpenID Connect', () => {
  it('signs a person in: the session cookie is HttpOnly and Lax, the API knows them, and the console gets its CSRF token', async () => {
    const { server, browser } = await setUp({ people: { ada: { groups: ['finance'] } } });
    expect(await session(browser, server)).toEqual({
      signedIn: false,
      provider: { name: 'Example SSO', loginUrl: '/auth/login' },
    });
    const { response } = await browser.signIn(server.url, 'ada', { returnTo: '/inbox?tab=mine' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/inbox?tab=mine');
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('heed_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const me = await session(browser, server);
    expect(me).toMatchObject({ signedIn: true, userId: 'ada', groups: ['finance'], email: 'ada@example.com' });
    expect(me.csrf).toMatch(/^[\w-]{20,}$/);
    const api = await browser.fetch(`${server.url}/api/me`);
    expect((await api.json()).userId).toBe('ada');
  });

  it('a write with the cookie needs the CSRF header (a page elsewhere cannot ride the cookie); a bearer token needs none', async () => {
    const { server, browser } = await setUp();
    await browser.signIn(server.url, 'ada');
    const { csrf } = await session(browser, server);
    const body = JSON.stringify({ agent: 'support' });
    const headers = { 'content-type': 'application/json' };
    const forged = await browser.fetch(`${server.url}/api/conversations`, { method: 'POST', body, headers });
    expect(forged.status).toBe(403);
    expect((await forged.json()).error.code).toBe('csrf');
    const wrong = await browser.fetch(`${server.url}/api/conversations`, {
      method: 'POST',
      body,
      headers: { ...headers, 'x-heed-csrf': `${csrf}x` },
    });
    expect(wrong.status).toBe(403);
    const made = await browser.fetch(`${server.url}/api/conversations`, {
      method: 'POST',
      body,
      headers: { ...headers, 'x-heed-csrf': csrf },
    });
    expect(made.status).toBe(201);
    expect((await made.json()).ownerId).toBe('ada');
    const listed = await server.api('GET', '/api/conversations', { token: 'tok-ada' });
    expect(listed.body.conversations).toHaveLength(1);
  });

  it('returnTo goes only to a path on this origin: other sites, protocol-relative and backslash tricks go to /', async () => {
    const { server } = await setUp();
    for (const returnTo of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      '/ok?x=1',
    ]) {
      const { response } = await new Browser().signIn(server.url, 'ada', { returnTo });
      expect(response.headers.get('location'), returnTo).toBe(returnTo === '/ok?x=1' ? '/ok?x=1' : '/');
    }
  });

  it('a replayed callback, one without state, one with a changed state, or one from another browser signs nobody in', async () => {
    const { server, browser } = await setUp();
    const { url } = await browser.signIn(server.url, 'ada', { stopAtCallback: true });
    const other = new Browser();
    const elsewhere = await other.fetch(url);
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('not started in this browser');

    const changed = new URL(url);
    changed.searchParams.set('state', 'forged');
    const badState = await browser.fetch(changed.href);
    expect(badState.status).toBe(400);
    expect(badState.headers.getSetCookie().some((line) => line.startsWith('heed_session='))).toBe(false);

    const second = new Browser();
    const started = await second.signIn(server.url, 'ada', { stopAtCallback: true });
    const missing = new URL(started.url);
    missing.searchParams.delete('state');
    expect((await second.fetch(missing.href)).status).toBe(400);

    const third = new Browser();
    const good = await third.signIn(server.url, 'ada', { stopAtCallback: true });
    expect((await third.fetch(good.url)).status).toBe(302);
    const replay = await third.fetch(good.url);
    expect(replay.status).toBe(400);
    expect((await session(second, server)).signedIn).toBe(false);
  });

  it('session fixation: a session id planted before sign-in is not the one after it', async () => {
    const { server, browser } = await setUp();
    const origin = new URL(server.url).origin;
    browser.setCookie(origin, 'heed_session', 'planted-by-someone-else-0123456789');
    await browser.signIn(server.url, 'ada');
    const after = browser.cookie(origin, 'heed_session');
    expect(after).toBeDefined();
    expect(after).not.toBe('planted-by-someone-else-0123456789');
    expect((await session(browser, server)).userId).toBe('ada');
  });

  it("sign-out ends the session at once (used again it is anonymous) and gives the provider's end-session URL", async () => {
    const { server, browser, provider } = await setUp({ auth: { required: true } });
    await browser.signIn(server.url, 'ada');
    const origin = new URL(server.url).origin;
    const stolen = browser.cookie(origin, 'heed_session')!;
    const { csrf } = await session(browser, server);
    const refused = await browser.fetch(`${server.url}/auth/logout`, { method: 'POST' });
    expect(refused.status).toBe(403);
    const out = await browser.fetch(`${server.url}/auth/logout`, { method: 'POST', headers: { 'x-heed-csrf': csrf } });
    expect(out.status).toBe(200);
    const { endSessionUrl } = await out.json();
    expect(endSessionUrl).toMatch(new RegExp(`^${provider.issuer}/session/end\\?`));
    expect(new URL(endSessionUrl).searchParams.get('id_token_hint')).toMatch(/^ey/);
    const replayed = new Browser();
    replayed.setCookie(origin, 'heed_session', stolen);
    expect((await replayed.fetch(`${server.url}/api/me`)).status).toBe(401);
  });

  it('a person outside allowedDomains, or with an unverified address, gets a 403 page and no session', async () => {
    const { server } = await setUp({
      people: {
        eve: { email: 'eve@elsewhere.example' },
        mallory: { email: 'mallory@example.com', emailVerified: false },
      },
      oidc: { allowedDomains: ['example.com'] },
    });
    for (const login of ['eve', 'mallory']) {
      const browser = new Browser();
      const { response } = await browser.signIn(server.url, login);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('Only people with a verified address at example.com');
      expect((await session(browser, server)).signedIn).toBe(false);
    }
    const { response } = await new Browser().signIn(server.url, 'ada');
    expect(response.status).toBe(302);
  });

  it('userClaim picks the id (email here); no session id, secret or ID token is stored in clear', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heed-oidc-'));
    closing.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'heed.db');
    const { server, browser } = await setUp({
      oidc: { userClaim: 'email' },
      config: { store: sqliteStore({ path: file }) },
    });
    await browser.signIn(server.url, 'ada');
    expect((await session(browser, server)).userId).toBe('ada@example.com');
    const id = browser.cookie(new URL(server.url).origin, 'heed_session')!;
    const db = new Database(file, { readonly: true });
    const rows = JSON.stringify(db.prepare('SELECT * FROM adapter_values').all());
    db.close();
    expect(rows).toContain('heed:session:');
    expect(rows).not.toContain(id);
    expect(rows).not.toContain('heed-test-secret');
    expect(rows).not.toMatch(/ey[\w-]{10,}\.ey/);
  });

  it('a session ends after sessionHours without use, and lives on while used; it survives a restart on the same SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heed-oidc-'));
    closing.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'heed.db');
    const clock = { at: Date.now() };
    const { server, browser, provider } = await setUp({
      auth: { sessionHours: 2 },
      config: { store: sqliteStore({ path: file }), now: () => new Date(clock.at) },
    });
    await browser.signIn(server.url, 'ada');
    clock.at += 90 * 60_000; // used again within two hours: it goes on
    expect((await session(browser, server)).signedIn).toBe(true);
    clock.at += 90 * 60_000;
    expect((await session(browser, server)).userId).toBe('ada');

    // A new process on the same file knows the session (the provider is not asked again).
    await server.close();
    const again = await startServer({
      auth: {
        oidc: { issuer: provider.issuer, clientId: 'heed', clientSecret: 'heed-test-secret' },
        sessionHours: 2,
      },
      store: sqliteStore({ path: file }),
      now: () => new Date(clock.at),
    });
    closing.push(() => again.close());
    const moved = new Browser();
    moved.setCookie(
      new URL(again.url).origin,
      'heed_session',
      browser.cookie(new URL(server.url).origin, 'heed_session')!,
    );
    expect((await session(moved, again)).userId).toBe('ada');

    clock.at += 2 * 3_600_000 + 1; // two hours unused: it has ended
    expect((await session(moved, again)).signedIn).toBe(false);
    expect((await moved.fetch(`${again.url}/api/me`).then((response) => response.json())).userId).toBeNull();
  });

  it("a signed-in person's event stream ends when they sign out; the conversation's next message never reaches it", async () => {
    const { server, browser } = await setUp();
    await browser.signIn(server.url, 'ada');
    const { csrf } = await session(browser, server);
    const write = (path: string, body: unknown) =>
      browser.fetch(`${server.url}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'x-heed-csrf': csrf },
      });
    const { id } = await (await write('/api/conversations', { agent: 'support' })).json();
    const turn = await (await write(`/api/conversations/${id}/messages`, { content: 'refund' })).json();
    expect(turn.status).toBe('requires_action');

    const abort = new AbortController();
    closing.push(async () => abort.abort());
    const response = await browser.fetch(`${server.url}/api/conversations/${id}/events/stream`, {
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const { events, ended } = collectStream(response, abort.signal);
    await expect.poll(() => events.map((event) => event.event)).toContain('action.required');

    const out = await browser.fetch(`${server.url}/auth/logout`, { method: 'POST', headers: { 'x-heed-csrf': csrf } });
    expect(out.status).toBe(200);
    await expect.poll(() => ended(), { timeout: 5000 }).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: 'error' });
    expect(JSON.parse(events.at(-1)!.data).error.code).toBe('unauthorized');

    // ada answers with her token: the turn goes on, and its "Done." is in the log, not in the ended stream.
    const answered = await server.api('POST', `/api/conversations/${id}/actions/${turn.pendingActions[0].id}`, {
      token: 'tok-ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    const log = await server.api('GET', `/api/conversations/${id}/events`, { token: 'tok-ada' });
    expect(JSON.stringify(log.body.events)).toContain('Done.');
    expect(events.some((event) => event.data.includes('Done.'))).toBe(false);
  });

  it('a provider that cannot be reached gives a page that says so (503), not a 500; it is asked again next time', async () => {
    const { server, provider } = await setUp();
    await provider.close();
    const down = await new Browser().fetch(`${server.url}/auth/login`);
    expect(down.status).toBe(503);
    expect(await down.text()).toContain(`The sign-in provider at ${provider.issuer} could not be reached`);
  });

  it("a code from someone else's sign-in, or an ID token whose nonce is not this sign-in's, signs nobody in", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heed-oidc-'));
    closing.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'heed.db');
    const { server } = await setUp({ config: { store: sqliteStore({ path: file }) } });

    // Code injection: the attacker's own code, put into the victim's callback (with the victim's state).
    const attacker = new Browser();
    const theirs = new URL((await attacker.signIn(server.url, 'mallory', { stopAtCallback: true })).url);
    const victim = new Browser();
    const mine = new URL((await victim.signIn(server.url, 'ada', { stopAtCallback: true })).url);
    mine.searchParams.set('code', theirs.searchParams.get('code')!);
    const injected = await victim.fetch(mine.href);
    expect(injected.status).toBe(400);
    expect((await session(victim, server)).signedIn).toBe(false);

    // A nonce that does not match: the stored sign-in is changed under the callback.
    const third = new Browser();
    const started = await third.signIn(server.url, 'ada', { stopAtCallback: true });
    const db = new Database(file);
    const row = db.prepare("SELECT scope, value FROM adapter_values WHERE scope LIKE 'heed:sign-in:%'").all() as Array<{
      scope: string;
      value: string;
    }>;
    for (const { scope, value } of row)
      db.prepare('UPDATE adapter_values SET value = ? WHERE scope = ?').run(
        JSON.stringify({ ...JSON.parse(value), nonce: 'not-the-one-sent' }),
        scope,
      );
    db.close();
    const wrongNonce = await third.fetch(started.url);
    expect(wrongNonce.status).toBe(400);
    const said = await wrongNonce.text();
    expect(said, said).toMatch(/nonce/i);
    expect((await session(third, server)).signedIn).toBe(false);
  });

  it('an anonymous caller starting sign-ins in a loop gets a 429 page after twenty a minute', async () => {
    const { server } = await setUp();
    for (let index = 0; index < 20; index++) {
      const started = await new Browser().fetch(`${server.url}/auth/login`);
      expect(started.status).toBe(302);
    }
    const refused = await new Browser().fetch(`${server.url}/auth/login`);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('Too many sign-ins started from here');
  });
});
