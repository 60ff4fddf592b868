import { createHash } from 'node:crypto';
import type { Store } from '../../store/store.js';

/*
 * What sign-in keeps in the store's values (sessions, sign-ins under way, personal tokens, device codes):
 * each under a scope named by a SHA-256 of its secret, so the secret itself is never stored.
 */

export type Values = Pick<Store, 'listValues' | 'swapValue' | 'deleteValues'>;

/** The hex SHA-256 of `text`. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** `<prefix>:<SHA-256 of secret>`: the scope a secret's record lives under. */
export function hashedScope(prefix: string, secret: string): string {
  return `${prefix}:${sha256Hex(secret)}`;
}

/** The one value kept under `scope` and `key`, if any. */
export async function readValue(
  values: Pick<Store, 'listValues'>,
  scope: string,
  key: string,
): Promise<string | undefined> {
  return (await values.listValues(scope)).find((value) => value.key === key)?.value;
}

/** The scopes sign-in keeps its records under (each followed by `:` and a SHA-256). */
export const SCOPES_OF = {
  session: 'heed:session',
  token: 'heed:token',
  tokensOf: 'heed:tokens-of',
  device: 'heed:device',
} as const;

/**
 * What sign-in keeps that names a person, for erasure: their sessions, tokens and approved device codes (found by
 * the person named in them, under these prefixes) and the list of their tokens (a scope of its own).
 */
export function signInValuesOf(userId: string): { valuePrefixes: string[]; valueScopes: string[] } {
  return {
    valuePrefixes: [`${SCOPES_OF.session}:`, `${SCOPES_OF.token}:`, `${SCOPES_OF.device}:`],
    valueScopes: [hashedScope(SCOPES_OF.tokensOf, userId)],
  };
}
