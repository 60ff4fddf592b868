import type { JWTPayload, JWTVerifyGetKey } from 'jose';

/** The token of an `Authorization: Bearer <token>` header, if the request has one. */
export function bearerToken(request: Request): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
}

/**
 * Verifies a platform's JWT as Teams and Google Chat both sign theirs: RS256 only, from `issuer`, for
 * `audience`, with an expiry, 5 minutes of clock skew. Throws when any check fails; `jose` loads on first use.
 */
export async function verifyRs256(
  token: string,
  keys: JWTVerifyGetKey,
  claims: { issuer: string | string[]; audience: string },
): Promise<JWTPayload> {
  const { jwtVerify } = await import('jose');
  const { payload } = await jwtVerify(token, keys, {
    ...claims,
    algorithms: ['RS256'],
    clockTolerance: 300,
    requiredClaims: ['exp'],
  });
  return payload;
}
