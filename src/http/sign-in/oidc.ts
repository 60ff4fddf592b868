import { randomBytes } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import type { OidcConfig } from '../../config.js';
import { importOptional } from '../../optional-dependency.js';
import { isLoopbackAddress } from '../host-check.js';
import { clientKey, RateLimiter } from '../rate-limit.js';
import type { AppEnv } from '../route.js';
import { peerAddress } from '../trusted-header.js';
import { csrfRefusal, SESSION_COOKIE } from './sessions.js';
import { hashedScope, readValue } from './stored.js';
import type { SignIn } from './sign-in.js';

type OpenId = typeof import('openid-client');

/** The short-lived cookie that ties a callback to the browser that started the sign-in. */
const LOGIN_COOKIE = 'heed_login';
const LOGIN_MINUTES = 10;
/** Sign-ins one address may start in a minute. */
const LOGINS_PER_MINUTE = 20;

interface LoginTransaction {
  state: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  createdAt: string;
}

/**
 * `auth.oidc`: the authorization code flow with PKCE, `state` and `nonce` (openid-client, loaded only here),
 * then a session in the store. Routes: `/auth/login`, `/auth/callback`, `/auth/session`, `/auth/logout`.
 */
export function mountOidc(app: Hono<AppEnv>, oidc: OidcConfig, signIn: SignIn): void {
  let discovered: Promise<{ client: OpenId; config: import('openid-client').Configuration }> | undefined;
  const provider = () =>
    (discovered ??= discover(oidc).catch((thrown: unknown) => {
      discovered = undefined; // the provider may be back on the next try
      throw thrown;
    }));
  const secure = oidc.publicUrl?.startsWith('https:') ?? false;
  // Anyone may start a sign-in, and each is a record in the store for ten minutes: bounded per address.
  const starts = new RateLimiter(LOGINS_PER_MINUTE);

  app.get('/auth/login', async (c) => {
    const taken = starts.take(clientKey(null, peerAddress(c.env)));
    if (!taken.ok)
      return failed(c, 429, `Too many sign-ins started from here: try again in ${taken.retryAfterSeconds} s.`);
    let found: Awaited<ReturnType<typeof provider>>;
    try {
      found = await provider();
    } catch (thrown) {
      // Not Heed's fault, and nothing a person can fix here: a page that says where it failed.
      const said = thrown instanceof Error ? thrown.message : String(thrown);
      return failed(
        c,
        503,
        `The sign-in provider at ${oidc.issuer} could not be reached (${said}). Try again shortly.`,
      );
    }
    const { client, config } = found;
    const id = randomBytes(24).toString('base64url');
    const transaction: LoginTransaction = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
      returnTo: samePath(c.req.query('returnTo')),
      createdAt: new Date().toISOString(),
    };
    await signIn.values.swapValue(loginScope(id), 'login', null, JSON.stringify(transaction));
    setCookie(c, LOGIN_COOKIE, id, {
      httpOnly: true,
      sameSite: 'Lax',
      secure,
      path: '/auth',
      maxAge: LOGIN_MINUTES * 60,
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl(c, oidc),
      scope: (oidc.scopes ?? ['openid', 'email', 'profile']).join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(transaction.codeVerifier),
      code_challenge_method: 'S256',
      state: transaction.state,
      nonce: transaction.nonce,
    });
    return c.redirect(url.href, 302);
  });

  app.get('/auth/callback', async (c) => {
    const id = getCookie(c, LOGIN_COOKIE);
    deleteCookie(c, LOGIN_COOKIE, { path: '/auth' });
    // Taken once: a callback replayed, or opened in a browser that did not start the sign-in, finds nothing.
    const transaction = id ? await takeTransaction(signIn, id) : undefined;
    if (!transaction) return failed(c, 400, 'This sign-in was not started in this browser, or it was already used.');
    const { client, config } = await provider();
    const current = new URL(c.req.url);
    const redirect = new URL(callbackUrl(c, oidc));
    current.protocol = redirect.protocol;
    current.host = redirect.host;
    let claims: Record<string, unknown>;
    let idToken: string | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: transaction.codeVerifier,
        expectedState: transaction.state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
      idToken = tokens.id_token;
      const userClaim = oidc.userClaim ?? 'sub';
      const groupsClaim = oidc.groupsClaim ?? 'groups';
      // Providers often keep email and groups out of the ID token: the userinfo endpoint has them.
      if ((claims[userClaim] === undefined || claims[groupsClaim] === undefined) && tokens.access_token) {
        const info = await client.fetchUserInfo(config, tokens.access_token, String(claims.sub)).catch(() => undefined);
        if (info) claims = { ...info, ...claims };
      }
    } catch (thrown) {
      // openid-client wraps the precise reason (which claim, nonce or issuer…) as the cause.
      const inner = thrown instanceof Error && thrown.cause instanceof Error ? thrown.cause : thrown;
      const said = inner instanceof Error ? inner.message : String(inner);
      return failed(c, 400, `The identity provider's answer did not check out (${said}). Sign in again.`);
    }
    const person = personOf(claims, oidc);
    if ('refused' in person) return failed(c, 403, person.refused);
    const previous = getCookie(c, SESSION_COOKIE);
    if (previous) await signIn.sessions.end(previous).catch(() => undefined);
    const session = await signIn.sessions.create({ ...person, ...(idToken ? { idToken } : {}) }, [
      { at: new Date().toISOString(), actor: person.userId, verb: 'sign-in', surface: 'oidc' },
    ]);
    setCookie(c, SESSION_COOKIE, session, { httpOnly: true, sameSite: 'Lax', secure, path: '/' });
    return c.redirect(transaction.returnTo, 302);
  });

  app.post('/auth/logout', async (c) => {
    const id = getCookie(c, SESSION_COOKIE);
    if (!id) return c.json({});
    // A page elsewhere must not sign a person out: the same CSRF header as every cookie write.
    if (!(await signIn.sessions.csrfMatches(id, c.req.header('x-heed-csrf')))) throw csrfRefusal();
    const { idToken } = await signIn.sessions.end(id);
    // Streams it opened here end now; on other instances, at their next event.
    signIn.accessChanged();
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    const { client, config } = await provider();
    let endSessionUrl: string | undefined;
    if (config.serverMetadata().end_session_endpoint) {
      endSessionUrl = client.buildEndSessionUrl(config, {
        ...(idToken ? { id_token_hint: idToken } : {}),
        post_logout_redirect_uri: new URL('/', callbackUrl(c, oidc)).href,
      }).href;
    }
    return c.json(endSessionUrl ? { endSessionUrl } : {});
  });
}

async function discover(oidc: OidcConfig) {
  const client = await importOptional<OpenId>('openid-client', 'Sign-in with auth.oidc');
  const issuer = new URL(oidc.issuer);
  // Plain http only for a provider on this machine (a test or a local Keycloak), never across a network.
  const insecure = issuer.protocol === 'http:' && isLoopbackAddress(issuer.hostname.replace(/^\[|\]$/g, ''));
  const config = await client.discovery(
    issuer,
    oidc.clientId,
    oidc.clientSecret,
    // Basic is what most providers expect by default (Okta's, say); a public client sends none.
    oidc.clientSecret === undefined ? client.None() : client.ClientSecretBasic(oidc.clientSecret),
    insecure ? { execute: [client.allowInsecureRequests] } : undefined,
  );
  return { client, config };
}

/** The person the claims name, or why they may not sign in. */
function personOf(
  claims: Record<string, unknown>,
  oidc: OidcConfig,
): { userId: string; groups: string[]; email?: string } | { refused: string } {
  const userId = claims[oidc.userClaim ?? 'sub'];
  if (typeof userId !== 'string' || userId === '')
    return {
      refused: `The identity provider gave no "${oidc.userClaim ?? 'sub'}" for you, so Heed cannot tell who you are.`,
    };
  const rawGroups = claims[oidc.groupsClaim ?? 'groups'];
  const groups = Array.isArray(rawGroups)
    ? rawGroups.filter((group): group is string => typeof group === 'string')
    : [];
  const email = typeof claims.email === 'string' ? claims.email : undefined;
  if (oidc.allowedDomains?.length) {
    const domain = email?.split('@').pop()?.toLowerCase();
    const allowed = oidc.allowedDomains.map((entry) => entry.toLowerCase());
    if (!domain || claims.email_verified === false || !allowed.includes(domain))
      return {
        refused: `Only people with a verified address at ${oidc.allowedDomains.join(', ')} may sign in here${email ? `; you signed in as ${email}` : ''}.`,
      };
  }
  return { userId, groups, ...(email ? { email } : {}) };
}

async function takeTransaction(signIn: SignIn, id: string): Promise<LoginTransaction | undefined> {
  const scope = loginScope(id);
  const raw = await readValue(signIn.values, scope, 'login');
  if (raw === undefined || !(await signIn.values.swapValue(scope, 'login', raw, null))) return undefined;
  const transaction = JSON.parse(raw) as LoginTransaction;
  if (Date.now() - Date.parse(transaction.createdAt) > LOGIN_MINUTES * 60_000) return undefined;
  return transaction;
}

function loginScope(id: string): string {
  return hashedScope('heed:sign-in', id);
}

/** Where the provider sends the browser back: under `publicUrl` when set, else this request's own origin. */
function callbackUrl(c: Context<AppEnv>, oidc: OidcConfig): string {
  const base = oidc.publicUrl ?? new URL(c.req.url).origin;
  return new URL('/auth/callback', base.endsWith('/') ? base : `${base}/`).href;
}

/** Only a path on this origin: `//evil.example`, `/\evil.example` and full URLs all go to `/`. */
export function samePath(returnTo: string | undefined): string {
  if (!returnTo || !returnTo.startsWith('/') || returnTo.startsWith('//') || /[\\\s]/.test(returnTo)) return '/';
  try {
    const url = new URL(returnTo, 'http://heed.invalid');
    return url.origin === 'http://heed.invalid' ? `${url.pathname}${url.search}${url.hash}` : '/';
  } catch {
    return '/';
  }
}

function failed(c: Context<AppEnv>, status: 400 | 403 | 429 | 503, sentence: string) {
  // hono's html escapes what is put into it: the sentence may quote a claim from the provider.
  return c.html(
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>Sign-in failed · Heed</title>
        </head>
        <body>
          <main style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem">
            <h1>Sign-in failed</h1>
            <p>${sentence}</p>
            <p><a href="/auth/login">Sign in again</a></p>
          </main>
        </body>
      </html>`,
    status,
  );
}
