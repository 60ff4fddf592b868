import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import type { HeedConfig } from '../config.js';

/** `auth.trustedHeader` (docs/http.md, "Behind an authenticating proxy"), over real HTTP. */

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(auth: HeedConfig['auth']) {
  const server = await startServer({ auth });
  servers.push(server);
  return server;
}

/** GET /api/me over a real connection from 127.0.0.1, with these headers. */
async function me(server: TestServer, headers: Record<string, string>) {
  const response = await fetch(`${server.url}/api/me`, { headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const forged = { 'x-forwarded-user': 'ada', 'x-forwarded-groups': 'ops, finance' };

describe('trusted header from a proxy address', () => {
  it('a user header from an address not listed is anonymous, never the claimed user; 401 when sign-in is required', async () => {
    const open = await start({ trustedHeader: { user: 'x-forwarded-user', fromAddresses: ['10.9.8.7'] } });
    expect(await me(open, forged)).toEqual({ status: 200, body: { userId: null } });
    // In process, as the tests' api() calls the app.
    expect((await open.api('GET', '/api/me', { headers: forged })).body).toEqual({ userId: null });

    const closed = await start({
      required: true,
      trustedHeader: { user: 'x-forwarded-user', groups: 'x-forwarded-groups', fromAddresses: ['10.9.8.7'] },
    });
    const refused = await me(closed, forged);
    expect(refused.status).toBe(401);
  });

  it('from a listed address it is that user with their groups; an IPv4-mapped address is the same address', async () => {
    for (const address of ['127.0.0.1', '::ffff:127.0.0.1']) {
      const server = await start({
        required: true,
        trustedHeader: { user: 'x-forwarded-user', groups: 'x-forwarded-groups', fromAddresses: [address] },
      });
      expect(await me(server, forged)).toEqual({ status: 200, body: { userId: 'ada', groups: ['ops', 'finance'] } });
      // No user header: nobody is named; nor do two values, a client's copy the proxy appended to.
      expect((await me(server, {})).status).toBe(401);
      expect((await me(server, { 'x-forwarded-user': 'mallory, ada' })).status).toBe(401);
    }
  });

  it('a bearer token still wins over the headers', async () => {
    const server = await start({
      tokens: { 'tok-bob': 'bob' },
      trustedHeader: { user: 'x-forwarded-user', fromAddresses: ['127.0.0.1'] },
    });
    expect(await me(server, { ...forged, authorization: 'Bearer tok-bob' })).toEqual({
      status: 200,
      body: { userId: 'bob' },
    });
    expect((await me(server, { ...forged, authorization: 'Bearer nope' })).status).toBe(401);
  });

  it('a trustedHeader with neither fromAddresses nor assertion is refused at start, naming the key', async () => {
    await expect(start({ trustedHeader: { user: 'x-forwarded-user' } })).rejects.toThrow(
      /auth\.trustedHeader: expected fromAddresses or assertion/,
    );
    await expect(start({ trustedHeader: { user: 'x-forwarded-user', fromAddresses: ['10.0.0.0/8'] } })).rejects.toThrow(
      /auth\.trustedHeader\.fromAddresses\[0\]: expected an IP address/,
    );
  });
});

describe('trusted header with a signed assertion', () => {
  let jwks: Server;
  let jwksUrl: string;
  let key: CryptoKey;
  let otherKey: CryptoKey;
  const issuer = 'https://proxy.example.com';
  const audience = 'heed-app';

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey;
    otherKey = (await generateKeyPair('ES256')).privateKey;
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    jwks = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
  });
  afterAll(async () => {
    await new Promise((resolve) => jwks.close(resolve));
  });

  const sign = (
    claims: Record<string, unknown>,
    options: { with?: CryptoKey; issuer?: string; audience?: string; expires?: string | number } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(options.issuer ?? issuer)
      .setAudience(options.audience ?? audience)
      .setIssuedAt()
      .setExpirationTime(options.expires ?? '5m')
      .sign(options.with ?? key);

  const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  async function proxied() {
    return start({
      trustedHeader: {
        user: 'x-forwarded-user',
        groups: 'x-forwarded-groups',
        assertion: { header: 'x-proxy-assertion', jwksUrl, issuer, audience },
      },
    });
  }

  it('a good JWT is its email (else its sub), with the groups it carries', async () => {
    const server = await proxied();
    const good = await sign({ sub: 'u-123', email: 'ada@example.com', groups: ['ops'] });
    expect(await me(server, { 'x-proxy-assertion': good })).toEqual({
      status: 200,
      body: { userId: 'ada@example.com', groups: ['ops'] },
    });
    const subOnly = await sign({ sub: 'u-123' });
    expect((await me(server, { 'x-proxy-assertion': subOnly })).body).toEqual({ userId: 'u-123' });
  });

  it('the user and groups headers alone, an unsigned JWT, another key, another audience or issuer, an expired JWT: all anonymous', async () => {
    const server = await proxied();
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${base64url({ alg: 'none', kid: 'k1' })}.${base64url({ sub: 'x', email: 'ada@example.com', iss: issuer, aud: audience, exp: now + 300 })}.`;
    const attempts: Record<string, Record<string, string>> = {
      headers: forged,
      unsigned: { 'x-proxy-assertion': unsigned },
      otherKey: { 'x-proxy-assertion': await sign({ email: 'ada@example.com' }, { with: otherKey }) },
      audience: { 'x-proxy-assertion': await sign({ email: 'ada@example.com' }, { audience: 'another-app' }) },
      issuer: { 'x-proxy-assertion': await sign({ email: 'ada@example.com' }, { issuer: 'https://evil.example.com' }) },
      expired: { 'x-proxy-assertion': await sign({ email: 'ada@example.com' }, { expires: now - 3600 }) },
      garbage: { 'x-proxy-assertion': 'not-a-jwt' },
    };
    for (const [what, headers] of Object.entries(attempts)) {
      expect([what, await me(server, headers)]).toEqual([what, { status: 200, body: { userId: null } }]);
    }
    // A good JWT with a forged groups header: the header's groups are not taken without the proxy's address.
    const good = await sign({ email: 'ada@example.com' });
    expect((await me(server, { ...forged, 'x-proxy-assertion': good })).body).toEqual({ userId: 'ada@example.com' });
  });

  it('with both checks, each must pass', async () => {
    const server = await start({
      trustedHeader: {
        user: 'x-forwarded-user',
        fromAddresses: ['10.9.8.7'],
        assertion: { header: 'x-proxy-assertion', jwksUrl, issuer, audience },
      },
    });
    const good = await sign({ email: 'ada@example.com' });
    expect((await me(server, { 'x-proxy-assertion': good })).body).toEqual({ userId: null });
  });
});
