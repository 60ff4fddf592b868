import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { bearerToken, verifyRs256 } from './bearer-jwt.js';

/** The account Google Chat signs its project-number tokens with. */
export const GOOGLE_CHAT_ISSUER = 'chat@system.gserviceaccount.com';
/** That account's public keys as a JWK set (the same keys as its X.509 certificates). */
export const GOOGLE_CHAT_JWKS = 'https://www.googleapis.com/service_accounts/v1/jwk/chat@system.gserviceaccount.com';
/** Google's OpenID keys, which sign the ID tokens of apps whose audience is their endpoint URL. */
export const GOOGLE_OIDC_JWKS = 'https://www.googleapis.com/oauth2/v3/certs';
const GOOGLE_OIDC_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];

/**
 * The check of a request from Google Chat to a Chat app (docs/channels.md): its `Authorization: Bearer`
 * JWT, in one of the two forms the app's *Authentication audience* gives it:
 *
 * - *Project number*: signed by a key of `chat@system.gserviceaccount.com` (`chatJwksUrl`), issued by that
 *   account, for the project number;
 * - *HTTP endpoint URL*: a Google ID token (`googleJwksUrl`, issuer `accounts.google.com`) for the endpoint
 *   URL, whose verified `email` is Google Chat's account, or this app's own Workspace add-on account when
 *   configured. Anyone can have Google mint an ID token for a public URL: the email is what proves Chat
 *   sent it.
 *
 * Both not expired (5 minutes of clock skew), RS256 only. The key URLs are configurable so tests use their
 * own keys. Resolves false for any request that fails a check.
 */
export function googleChatVerifier(options: {
  endpointUrl: string;
  projectNumber?: string;
  addOnServiceAccountEmail?: string;
  chatJwksUrl: string;
  googleJwksUrl: string;
}): (request: Request) => Promise<boolean> {
  let chatKeys: Promise<JWTVerifyGetKey> | undefined;
  let googleKeys: Promise<JWTVerifyGetKey> | undefined;
  const remote = async (url: string) => (await import('jose')).createRemoteJWKSet(new URL(url));

  const projectNumberToken = async (token: string): Promise<boolean> => {
    if (!options.projectNumber) return false;
    chatKeys ??= remote(options.chatJwksUrl);
    await verifyRs256(token, await chatKeys, { issuer: GOOGLE_CHAT_ISSUER, audience: options.projectNumber });
    return true;
  };

  const endpointUrlToken = async (token: string): Promise<boolean> => {
    googleKeys ??= remote(options.googleJwksUrl);
    const payload = await verifyRs256(token, await googleKeys, {
      issuer: GOOGLE_OIDC_ISSUERS,
      audience: options.endpointUrl,
    });
    return sentByChat(payload, options.addOnServiceAccountEmail);
  };

  return async (request) => {
    const token = bearerToken(request);
    if (!token) return false;
    const { decodeJwt } = await import('jose');
    try {
      // The issuer says which of the two forms to check; the check itself trusts nothing unverified.
      return decodeJwt(token).iss === GOOGLE_CHAT_ISSUER
        ? await projectNumberToken(token)
        : await endpointUrlToken(token);
    } catch {
      return false;
    }
  };
}

/** Whether a verified ID token was issued to Google Chat itself (or to this app's own add-on account). */
function sentByChat(payload: JWTPayload, addOnServiceAccountEmail: string | undefined): boolean {
  if (payload.email_verified !== true || typeof payload.email !== 'string') return false;
  return (
    payload.email === GOOGLE_CHAT_ISSUER || (!!addOnServiceAccountEmail && payload.email === addOnServiceAccountEmail)
  );
}
