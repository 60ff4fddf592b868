import { HeedClientError, type ErrorBody } from 'heed/client';
import type { Session } from './session.js';

/*
 * The person's side of the terminal's sign-in through the browser (docs/auth.md, `heed inbox --login`):
 * read what a code stands for, then approve or deny it. These are `/auth/device/…` routes, not the API's,
 * so they live here beside the client; they speak as the console does (a token, or the session cookie
 * with its CSRF header on a write).
 */

/** What `GET /auth/device/code` says of a pending code. */
export interface DeviceRequest {
  /** The name of the machine that asks (its host name). */
  clientName: string;
  expiresAt: string;
}

/** `bcdf ghjk`, `BCDFGHJK` and `BCDF-GHJK` are the same code: as the terminal prints it, or undefined. */
export function formatUserCode(text: string): string | undefined {
  const letters = text.toUpperCase().replace(/[\s-]/g, '');
  if (!/^[A-Z]{8}$/.test(letters)) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

async function call<T>(session: Session, method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (session.token) headers.authorization = `Bearer ${session.token}`;
  else if (session.csrf && method !== 'GET') headers['x-heed-csrf'] = session.csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page, say): reported below.
  }
  if (response.ok) return parsed as T;
  const error = (parsed as Partial<ErrorBody> | undefined)?.error;
  if (typeof error?.code === 'string') throw new HeedClientError(response.status, error);
  throw new HeedClientError(response.status, {
    code: 'http_error',
    message: `The server answered ${response.status}.`,
  });
}

/** The terminal waiting with this code; 404 `not_found` when none is (unknown, lapsed or answered). */
export function readDeviceCode(session: Session, userCode: string): Promise<DeviceRequest> {
  return call(session, 'GET', `/auth/device/code?userCode=${encodeURIComponent(userCode)}`);
}

/** Approves or denies the terminal waiting with this code. */
export function answerDeviceCode(
  session: Session,
  outcome: 'approve' | 'deny',
  userCode: string,
): Promise<{ status: 'approved' | 'denied'; clientName: string }> {
  return call(session, 'POST', `/auth/device/${outcome}`, { userCode });
}
