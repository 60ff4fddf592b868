import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { presentationOf, type OneClickLinks } from '../kinds/index.js';
import type { ActionRecord } from '../types.js';

/** What an answer link grants: one action, answered as one recipient, until a time. */
export interface LinkClaims {
  conversationId: string;
  actionId: string;
  /** Recorded as `resolvedBy`: a user id or an email address; null for an ownerless conversation's webhook. */
  recipient: string | null;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** The URLs a notification carries: the page, and one-click choices that open it with the choice picked. */
export interface ActionLinks extends OneClickLinks {
  page: string;
}

const IV = 12;
const TAG = 16;

/**
 * Answer-link tokens: the claims sealed with AES-256-GCM under a key derived from the link secret. The
 * seal both signs and hides them, so a token names no conversation or action to whoever reads it, and
 * any change to it (or another server's secret) makes it unreadable.
 */
export class LinkSigner {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'heed', 'answer links v1', 32));
  }

  sign(claims: LinkClaims): string {
    const iv = randomBytes(IV);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = JSON.stringify({
      c: claims.conversationId,
      a: claims.actionId,
      r: claims.recipient,
      e: claims.expiresAt,
    });
    const sealed = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The claims of a genuine token that has not expired at `now`; undefined otherwise (whatever the reason). */
  verify(token: string, now: number): LinkClaims | undefined {
    if (token.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
    const bytes = Buffer.from(token, 'base64url');
    // The decoder drops a trailing character or stray low bits: only the exact text this server signed opens.
    if (bytes.length <= IV + TAG || bytes.toString('base64url') !== token) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG));
      const body = Buffer.concat([decipher.update(bytes.subarray(IV, bytes.length - TAG)), decipher.final()]).toString(
        'utf8',
      );
      const parsed = JSON.parse(body) as { c: unknown; a: unknown; r: unknown; e: unknown };
      if (typeof parsed.c !== 'string' || typeof parsed.a !== 'string' || typeof parsed.e !== 'number')
        return undefined;
      if (parsed.r !== null && typeof parsed.r !== 'string') return undefined;
      if (parsed.e <= now) return undefined;
      return { conversationId: parsed.c, actionId: parsed.a, recipient: parsed.r, expiresAt: parsed.e };
    } catch {
      // A token that does not decode is one this server did not sign: no claims.
      return undefined;
    }
  }
}

/** When a link to `action` made at `now` stops working: never later than the action lapses. */
export function linkExpiry(action: ActionRecord, now: number, ttlMinutes: number): number {
  const ttl = now + ttlMinutes * 60_000;
  return action.expiresAt ? Math.min(Date.parse(action.expiresAt), ttl) : ttl;
}

/** Whether a person answers `action` through a link (its kind's `answeredByLink`). */
export function answerableByLink(action: ActionRecord): boolean {
  return presentationOf(action.kind).answeredByLink;
}

/** The page's URL and its one-click choices for one token. */
export function actionLinks(publicUrl: string, token: string, action: ActionRecord): ActionLinks {
  const page = `${publicUrl.replace(/\/+$/, '')}/a/${token}`;
  return { page, ...presentationOf(action.request.kind).oneClickLinks(action.request, page) };
}
