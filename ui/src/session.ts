/** Who the console speaks as: a bearer token, or anonymous. Kept in this browser's local storage. */
export interface Session {
  token?: string;
  /**
   * Signed in with the organization's identity: the HttpOnly cookie carries the session and this is its CSRF
   * token (from `GET /auth/session`, never kept in storage).
   */
  csrf?: string;
  /** The user id, once the server has shown it (the owner of a conversation this caller created). */
  userId?: string;
}

const SESSION_KEY = 'heed.console.session';
const ANONYMOUS_KEY = 'heed.console.anonymous-conversations';

export function loadSession(): Session | null {
  try {
    const raw = localStorage.getItem(SESSION_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Session;
    return typeof value === 'object' && value ? value : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  // A cookie session is asked of the server on each load: nothing of it is kept here.
  if (session && !session.csrf) localStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else localStorage.removeItem(SESSION_KEY);
}

/** Whether the console speaks as someone (a token or a signed-in session), not anonymously. */
export function isSignedIn(session: Session): boolean {
  return Boolean(session.token || session.csrf);
}

/** What `GET /auth/session` says: sign-in with the organization's identity is set up, and who is signed in. */
export interface SsoState {
  provider: { name: string; loginUrl: string };
  signedIn: boolean;
  userId?: string;
  csrf?: string;
}

/** Asks the server whether it signs people in (404: it does not) and whether this browser is. */
export async function readSso(): Promise<SsoState | null> {
  try {
    const response = await fetch('/auth/session', { headers: { accept: 'application/json' } });
    return response.ok ? ((await response.json()) as SsoState) : null;
  } catch {
    return null;
  }
}

/** Ends the signed-in session; where the provider's own sign-out is, when it has one. */
export async function endSso(csrf: string): Promise<string | undefined> {
  const response = await fetch('/auth/logout', { method: 'POST', headers: { 'x-heed-csrf': csrf } }).catch(
    () => undefined,
  );
  if (!response?.ok) return undefined;
  return ((await response.json()) as { endSessionUrl?: string }).endSessionUrl;
}

/**
 * An anonymous caller owns nothing the server would list, so the console remembers the ids of the
 * conversations it started here.
 */
export function anonymousConversationIds(): string[] {
  try {
    const value = JSON.parse(localStorage.getItem(ANONYMOUS_KEY) ?? '[]') as unknown;
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberAnonymousConversation(id: string): void {
  const ids = anonymousConversationIds().filter((item) => item !== id);
  localStorage.setItem(ANONYMOUS_KEY, JSON.stringify([id, ...ids].slice(0, 100)));
}

export function forgetAnonymousConversation(id: string): void {
  localStorage.setItem(ANONYMOUS_KEY, JSON.stringify(anonymousConversationIds().filter((item) => item !== id)));
}
