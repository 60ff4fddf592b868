import type { JWTVerifyGetKey } from 'jose';
import type { Caller } from '../caller.js';
import type { TrustedHeaderConfig } from '../config-schema.js';

/** Keys a proxy signs with: never a shared secret (`HS256`), which would have to sit on this server too. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The most group names taken from one request, and the longest name: a header is the sender's to fill. */
const MAX_GROUPS = 100;
const MAX_NAME = 200;

/** `::ffff:10.0.0.5` (an IPv4 peer on a dual-stack socket) is `10.0.0.5`. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return (mapped ? mapped[1] : address).toLowerCase();
}

/** The TCP peer's address, as @hono/node-server passes the connection (`c.env`); undefined in-process without one. */
export function peerAddress(env: unknown): string | undefined {
  return (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
}

/** `a, b,,c` → `['a', 'b', 'c']`, bounded. */
function groupList(value: string | null): string[] {
  if (!value) return [];
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && name.length <= MAX_NAME);
  return [...new Set(names)].slice(0, MAX_GROUPS);
}

function claimGroups(value: unknown): string[] {
  return Array.isArray(value) ? groupList(value.filter((name) => typeof name === 'string').join(',')) : [];
}

/**
 * The caller an authenticating proxy names (docs/http.md, "Behind an authenticating proxy"), or null
 * when the request does not prove it came through that proxy: its TCP peer (`peer`) is not among
 * `fromAddresses`, or the JWT of `assertion` does not verify. Each check that is configured must pass.
 * With `fromAddresses`, the user and groups come from their headers. With `assertion`, the user is the
 * JWT's `email`, else its `sub`, and the groups its `groups` claim; the groups header then counts only
 * when `fromAddresses` also vouches for the connection (a person may hold their own JWT, never the proxy's address).
 */
export function trustedHeaderCaller(
  config: TrustedHeaderConfig,
): (request: Request, peer: string | undefined) => Promise<Caller | null> {
  const allowed = config.fromAddresses ? new Set(config.fromAddresses.map(plainAddress)) : undefined;
  const assertion = config.assertion;
  let keys: Promise<JWTVerifyGetKey> | undefined;
  // `jose` loads on first use; the key set is fetched then and cached by jose (refetched for an unknown `kid`).
  const keySet = () =>
    (keys ??= import('jose').then(({ createRemoteJWKSet }) => createRemoteJWKSet(new URL(assertion!.jwksUrl))));

  return async (request, peer) => {
    if (allowed && (peer === undefined || !allowed.has(plainAddress(peer)))) return null;
    const headerGroups = allowed && config.groups ? groupList(request.headers.get(config.groups)) : [];
    if (!assertion) {
      const userId = request.headers.get(config.user)?.trim();
      // Two values joined (a client's copy the proxy appended to rather than replaced) name nobody.
      if (!userId || userId.includes(',')) return null;
      // A proxy's user header is often the address (oauth2-proxy's X-Forwarded-Email): it is then the email too.
      const email = userId.includes('@') ? userId : undefined;
      return { userId, ...(email ? { email } : {}), ...(config.groups ? { groups: headerGroups } : {}) };
    }
    const token = request.headers.get(assertion.header)?.trim();
    if (!token) return null;
    try {
      const { jwtVerify } = await import('jose');
      const { payload } = await jwtVerify(token, await keySet(), {
        issuer: assertion.issuer,
        audience: assertion.audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
        clockTolerance: 60,
      });
      const userId =
        typeof payload.email === 'string' && payload.email !== ''
          ? payload.email
          : typeof payload.sub === 'string' && payload.sub !== ''
            ? payload.sub
            : null;
      if (userId === null) return null;
      const groups = [...new Set([...claimGroups(payload.groups), ...headerGroups])];
      const email = typeof payload.email === 'string' && payload.email !== '' ? payload.email : undefined;
      return { userId, ...(email ? { email } : {}), ...(groups.length ? { groups } : {}) };
    } catch {
      // Unsigned, signed by another key, for another audience or issuer, expired, or the keys could not be
      // fetched: the request is not vouched for.
      return null;
    }
  };
}
