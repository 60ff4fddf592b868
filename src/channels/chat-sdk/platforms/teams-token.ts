import type { JWTVerifyGetKey } from 'jose';
import { bearerToken, verifyRs256 } from './bearer-jwt.js';

/** Microsoft's OpenID metadata for the tokens the Bot Framework sends bots (docs/channels.md). */
export const BOT_FRAMEWORK_OPENID_METADATA = 'https://login.botframework.com/v1/.well-known/openidconfiguration';

/** How long the metadata (issuer and key URL) is kept before it is read again. */
const METADATA_TTL_MS = 24 * 60 * 60 * 1000;

interface Keys {
  issuer: string;
  keys: JWTVerifyGetKey;
}

/**
 * The check of a request from the Bot Framework to a bot: its `Authorization: Bearer` JWT is signed by a
 * key of the OpenID metadata's `jwks_uri`, issued by the metadata's `issuer`, for the bot's app id, not
 * expired (5 minutes of clock skew), and its `serviceurl` claim names the activity's `serviceUrl`, where
 * the bot will send its replies and its own token. The metadata URL is configurable so tests (and
 * sovereign clouds) use their own keys. Resolves false for any request that fails a check.
 */
export function botFrameworkVerifier(options: {
  appId: string;
  openIdMetadataUrl: string;
}): (request: Request, body: string) => Promise<boolean> {
  let cached: { at: number; keys: Promise<Keys> } | undefined;
  const keys = (): Promise<Keys> => {
    if (!cached || Date.now() - cached.at > METADATA_TTL_MS) {
      const entry = { at: Date.now(), keys: readKeys(options.openIdMetadataUrl) };
      // A failed read is tried again on the next request, not kept.
      entry.keys.catch(() => {
        if (cached === entry) cached = undefined;
      });
      cached = entry;
    }
    return cached.keys;
  };

  return async (request, body) => {
    const token = bearerToken(request);
    if (!token) return false;
    const metadata = await keys();
    const payload = await verifyRs256(token, metadata.keys, { issuer: metadata.issuer, audience: options.appId });
    const serviceUrl = (JSON.parse(body) as { serviceUrl?: unknown }).serviceUrl;
    return typeof payload.serviceurl === 'string' && typeof serviceUrl === 'string'
      ? sameUrl(payload.serviceurl, serviceUrl)
      : false;
  };
}

async function readKeys(metadataUrl: string): Promise<Keys> {
  const { createRemoteJWKSet } = await import('jose');
  const response = await fetch(metadataUrl, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`The OpenID metadata at ${metadataUrl} answered ${response.status}`);
  const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (typeof metadata.issuer !== 'string' || typeof metadata.jwks_uri !== 'string')
    throw new Error(`The OpenID metadata at ${metadataUrl} has no issuer or jwks_uri`);
  return { issuer: metadata.issuer, keys: createRemoteJWKSet(new URL(metadata.jwks_uri)) };
}

/** Service URLs compare without case and without a trailing slash, as the Bot Framework's own check does. */
function sameUrl(a: string, b: string): boolean {
  const normal = (url: string) => url.replace(/\/+$/, '').toLowerCase();
  return normal(a) === normal(b);
}
