import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { parse } from 'hono/utils/cookie';
import type { Caller } from '../../caller.js';
import type { AuthConfig } from '../../config.js';
import type { Store } from '../../store/store.js';
import type { AuditRecorder } from '../../engine/audit.js';
import { requireOptional } from '../../optional-dependency.js';
import type { AppEnv } from '../route.js';
import { mountOidc } from './oidc.js';
import { csrfRefusal, SESSION_COOKIE, Sessions } from './sessions.js';

/** Methods that change nothing, so need no CSRF header. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SignIn {
  values: Pick<Store, 'listValues' | 'swapValue' | 'deleteValues' | 'secret'>;
  sessions: Sessions;
  /** Tells this process's streams to ask again whether their callers may still follow (a session ended). */
  accessChanged: () => void;
  /** Where sign-ins are recorded (the audit log), with the session they make. */
  audit: AuditRecorder;
}

/** Sign-in for people (`auth.oidc`), or undefined when it is not configured: then none of it is loaded. */
export function signInOf(
  auth: AuthConfig | undefined,
  values: SignIn['values'],
  now: () => string,
  accessChanged: () => void,
  audit: AuditRecorder,
): SignIn | undefined {
  if (!auth?.oidc) return undefined;
  // Loaded at the first sign-in; missing, the start fails here with the npm i line.
  requireOptional('openid-client', 'Sign-in with auth.oidc', { resolveOnly: true });
  return {
    values,
    sessions: new Sessions(values, auth.sessionHours ?? 12, audit, () => new Date(now())),
    accessChanged,
    audit,
  };
}

/**
 * The caller a request's session cookie names, or null when it carries none that is alive. A change made
 * with the cookie must carry the session's CSRF token, else 403 `csrf`.
 */
export async function sessionCaller(signIn: SignIn, request: Request): Promise<Caller | null> {
  const id = parse(request.headers.get('cookie') ?? '', SESSION_COOKIE)[SESSION_COOKIE];
  if (!id) return null;
  const session = await signIn.sessions.read(id);
  if (!session) return null;
  if (
    !SAFE.has(request.method) &&
    !(await signIn.sessions.csrfMatches(id, request.headers.get('x-heed-csrf') ?? undefined))
  )
    throw csrfRefusal();
  return {
    userId: session.userId,
    groups: session.groups,
    ...(session.email ? { email: session.email } : {}),
    data: { signedIn: 'session' },
    stillSignedIn: () => signIn.sessions.alive(id),
  };
}

/** `/auth/*`: the provider's flow, and `GET /auth/session` for the console. */
export function mountSignIn(app: Hono<AppEnv>, auth: AuthConfig, signIn: SignIn): void {
  const oidc = auth.oidc!;
  const provider = { name: oidc.name ?? 'your organization', loginUrl: '/auth/login' };
  app.get('/auth/session', async (c) => {
    c.header('cache-control', 'no-store');
    const id = getCookie(c, SESSION_COOKIE);
    const session = id ? await signIn.sessions.read(id) : undefined;
    if (!session) return c.json({ signedIn: false, provider });
    return c.json({
      signedIn: true,
      userId: session.userId,
      groups: session.groups,
      ...(session.email ? { email: session.email } : {}),
      csrf: session.csrf,
      expiresAt: session.expiresAt,
      provider,
    });
  });
  mountOidc(app, oidc, signIn);
}
