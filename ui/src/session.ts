/** Who the console speaks as: a bearer token, or anonymous. Kept in this browser's local storage. */
export interface Session {
  token?: string;
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
  if (session) localStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else localStorage.removeItem(SESSION_KEY);
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
