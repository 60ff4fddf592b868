import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Caller } from '../caller.js';
import type { AuthConfig } from '../config.js';
import { HeedError } from '../errors.js';
import type { AppEnv } from './route.js';
import { sessionCaller, type SignIn } from './sign-in/sign-in.js';
import { PersonalTokens } from './sign-in/tokens.js';
import { peerAddress, trustedHeaderCaller } from './trusted-header.js';

const anonymous: Caller = Object.freeze({ userId: null }) as Caller;

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Works out who is calling. `resolveContext` wins when set; otherwise a bearer token is looked up in
 * `tokens`, and without one, `trustedHeader` may name the caller (`peer`: the TCP peer's address). No
 * credentials = anonymous (refused with 401 when `required`); a token that is not known is always refused
 * rather than treated as anonymous.
 */
export function callerResolver(
  auth: AuthConfig = {},
  signIn?: SignIn,
  personal?: PersonalTokens,
): (request: Request, peer?: string) => Promise<Caller> {
  // Keyed by a digest so a lookup costs the same whatever the token shares with a real one.
  const tokens = new Map<string, Caller>();
  for (const [token, user] of Object.entries(auth.tokens ?? {})) {
    // The shorthand `{ token: 'userId' }` is the user id alone.
    if (typeof user === 'string') tokens.set(digest(token), { userId: user });
    else
      tokens.set(digest(token), {
        userId: user.userId,
        ...(user.groups ? { groups: [...user.groups] } : {}),
        ...(user.data ? { data: user.data } : {}),
      });
  }
  const proxied = auth.trustedHeader ? trustedHeaderCaller(auth.trustedHeader) : undefined;

  return async (request, peer) => {
    let caller: Caller | null;
    if (auth.resolveContext) {
      caller = await auth.resolveContext(request);
    } else {
      const header = request.headers.get('authorization');
      if (header === null || header.trim() === '') {
        // No bearer token: a signed-in person's session cookie, else what a trusted proxy says.
        caller =
          (signIn ? await sessionCaller(signIn, request) : null) ?? (proxied ? await proxied(request, peer) : null);
      } else {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
        caller = match ? (tokens.get(digest(match[1])) ?? null) : null;
        // A personal token is looked up in the store each time: revoked, it stops at once.
        if (!caller && match && personal && PersonalTokens.isOne(match[1])) caller = await personal.caller(match[1]);
        if (!caller) throw new HeedError('unauthorized', 'The bearer token is not recognised.');
      }
    }
    if (!caller || caller.userId === null) {
      if (auth.required) throw new HeedError('unauthorized', 'Sign in: this server needs a bearer token.');
      return caller ?? anonymous;
    }
    return caller;
  };
}

/**
 * Puts the caller `resolve` (a `callerResolver`) finds on the context, for what needs sign-in outside
 * `/api` (`/mcp`, device approval); `/api` resolves it in its own layer (src/http/app.ts).
 */
export function callerMiddleware(resolve: ReturnType<typeof callerResolver>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('caller', await resolve(c.req.raw, peerAddress(c.env)));
    await next();
  };
}
