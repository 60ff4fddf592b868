import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../../test/http-fixtures.js';

/** The terminal's sign-in through the browser (RFC 8628's device flow) over real HTTP. */

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function start(clock = { at: Date.parse('2026-12-05T09:00:00Z') }) {
  const server = await startServer({
    auth: { tokens: { 'tok-ada': 'ada', 'tok-bob': 'bob' } },
    now: () => new Date(clock.at),
  });
  closing.push(() => server.close());
  const begin = async () => (await server.api('POST', '/auth/device', { body: { clientName: 'ada-laptop' } })).body;
  const poll = (deviceCode: string) => server.api('POST', '/auth/device/token', { body: { deviceCode } });
  const decide = (outcome: 'approve' | 'deny', userCode: string, token = 'tok-ada') =>
    server.api('POST', `/auth/device/${outcome}`, { token, body: { userCode } });
  return { server, clock, begin, poll, decide };
}

describe('device sign-in', () => {
  it('a terminal gets a read-and-answer token for the person who approved its code, once', async () => {
    const { server, clock, begin, poll, decide } = await start();
    const started = await begin();
    expect(started).toMatchObject({ interval: 5, expiresIn: 600 });
    expect(started.userCode).toMatch(/^[B-Z]{4}-[B-Z]{4}$/);
    expect(started.verificationUriComplete).toBe(`${server.url}/auth/device?code=${started.userCode}`);

    expect((await poll(started.deviceCode)).body.error.code).toBe('authorization_pending');
    expect((await poll(started.deviceCode)).body.error.code).toBe('slow_down');
    const shown = await server.api(
      'GET',
      `/auth/device/code?userCode=${started.userCode.toLowerCase().replace('-', ' ')}`,
      {
        token: 'tok-ada',
      },
    );
    expect(shown.body).toEqual({ clientName: 'ada-laptop', expiresAt: '2026-12-05T09:10:00.000Z' });

    expect((await decide('approve', started.userCode)).body).toEqual({ status: 'approved', clientName: 'ada-laptop' });
    clock.at += 6000;
    const got = await poll(started.deviceCode);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ userId: 'ada', scopes: ['read', 'answer'] });
    expect((await server.api('GET', '/api/me', { token: got.body.token })).body.userId).toBe('ada');
    const listed = (await server.api('GET', '/api/me/tokens', { token: 'tok-ada' })).body.tokens;
    expect(listed).toMatchObject([{ id: got.body.tokenId, name: 'heed inbox on ada-laptop' }]);
    // Taken once: the same device code gets nothing more.
    expect((await poll(started.deviceCode)).body.error.code).toBe('expired_token');
    // The token may end itself (heed inbox --logout), and that is all it may do with tokens.
    expect((await server.api('DELETE', `/api/me/tokens/${got.body.tokenId}`, { token: got.body.token })).status).toBe(
      204,
    );
    expect((await server.api('GET', '/api/me', { token: got.body.token })).status).toBe(401);
  });

  it('a code said no to, or left to lapse, gives no token; an approval after the lapse finds nothing', async () => {
    const { clock, begin, poll, decide } = await start();
    const denied = await begin();
    expect((await decide('deny', denied.userCode)).body.status).toBe('denied');
    expect((await poll(denied.deviceCode)).body.error.code).toBe('access_denied');

    const lapsed = await begin();
    clock.at += 601_000;
    expect((await decide('approve', lapsed.userCode)).status).toBe(404);
    expect((await poll(lapsed.deviceCode)).body.error.code).toBe('expired_token');
  });

  it('guessing codes: ten tries a minute, then 429 even for the right one; anonymous callers and personal tokens cannot approve', async () => {
    const { server, begin, poll, decide } = await start();
    const started = await begin();
    for (let guess = 0; guess < 10; guess++) expect((await decide('approve', 'BCDF-BCDF')).status).toBe(404);
    const limited = await decide('approve', started.userCode);
    expect(limited.status).toBe(429);
    expect((await poll(started.deviceCode)).body.error.code).toBe('authorization_pending');

    expect((await server.api('POST', '/auth/device/approve', { body: { userCode: started.userCode } })).status).toBe(
      401,
    );
    const pat = (
      await server.api('POST', '/api/me/tokens', { token: 'tok-bob', body: { name: 'x', scopes: ['answer'] } })
    ).body.token;
    const byToken = await decide('approve', started.userCode, pat);
    expect(byToken.status).toBe(403);
    expect(byToken.body.error.code).toBe('scope');
    // bob, whose own guesses are not counted against ada, approves: the terminal is bob's.
    expect((await decide('approve', started.userCode, 'tok-bob')).status).toBe(200);
  });

  it('an anonymous caller asking for codes in a loop gets 429 after ten a minute, so the store keeps no more', async () => {
    const { server } = await start();
    const ask = () =>
      fetch(`${server.url}/auth/device`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientName: 'loop' }),
      });
    for (let index = 0; index < 10; index++) expect((await ask()).status).toBe(200);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe('rate_limited');
  });
});
