import { randomBytes, randomInt } from 'node:crypto';
import type { Hono, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { Caller } from '../../caller.js';
import { HeedError } from '../../errors.js';
import { hashedScope, readValue, SCOPES_OF, sha256Hex, type Values } from './stored.js';
import { readJson } from '../errors.js';
import { clientKey, RateLimiter } from '../rate-limit.js';
import { peerAddress } from '../trusted-header.js';
import type { AppEnv } from '../route.js';
import type { PersonalTokens } from './tokens.js';

/** How long a terminal has for its person to approve it, and how often it may ask. */
const EXPIRES_SECONDS = 600;
const INTERVAL_SECONDS = 5;
/** Letters no one mistakes for another (no vowels, so no words either): 20^8 codes. */
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
/** Codes one address may ask for in a minute: each is a record in the store until it is used or polled after it lapses. */
const STARTS_PER_MINUTE = 10;
/** Codes one person may look up or answer in a minute, on one instance, right or wrong, before 429. */
const LOOKUPS_PER_MINUTE = 10;

interface DeviceRecord {
  clientName: string;
  createdAt: string;
  expiresAt: string;
  polledAt: string | null;
  status: 'pending' | 'approved' | 'denied';
  userId?: string;
  groups?: string[];
}

/**
 * The terminal's sign-in through the browser (RFC 8628's device flow, as `gh auth login` does): the
 * terminal asks for a code, the person approves it in the console while signed in, and the terminal's
 * next poll gets a personal token (`read answer`). Codes live in the store's values, hashed, for ten
 * minutes; each is used once.
 */
export function mountDevice(
  app: Hono<AppEnv>,
  deps: { values: Values; tokens: PersonalTokens; now: () => Date; auth: MiddlewareHandler<AppEnv> },
): void {
  const { values, tokens, now } = deps;
  const lookups = new RateLimiter(LOOKUPS_PER_MINUTE);
  const starts = new RateLimiter(STARTS_PER_MINUTE);

  app.post('/auth/device', async (c) => {
    // Anyone may ask, so what one address can make the store keep is bounded.
    const taken = starts.take(clientKey(null, peerAddress(c.env)));
    if (!taken.ok)
      throw new HeedError(
        'rate_limited',
        `Too many sign-in codes asked for: try again in ${taken.retryAfterSeconds} s.`,
        {
          details: { retryAfterSeconds: taken.retryAfterSeconds },
        },
      );
    const body = z
      .strictObject({ clientName: z.string().trim().min(1).max(80) })
      .safeParse(await readJson(c.req.raw, 4096));
    if (!body.success)
      throw new HeedError(
        'invalid_request',
        'Send { clientName }: the name of the machine that asks (1 to 80 characters).',
      );
    const deviceCode = randomBytes(32).toString('base64url');
    const userCode = newUserCode();
    const at = now();
    const record: DeviceRecord = {
      clientName: body.data.clientName,
      createdAt: at.toISOString(),
      expiresAt: new Date(at.getTime() + EXPIRES_SECONDS * 1000).toISOString(),
      polledAt: null,
      status: 'pending',
    };
    await values.swapValue(deviceScope(deviceCode), 'device', null, JSON.stringify(record));
    await values.swapValue(userCodeScope(userCode), 'device', null, sha256Hex(deviceCode));
    const verificationUri = new URL('/auth/device', c.req.url).href;
    return c.json({
      deviceCode,
      userCode,
      verificationUri,
      verificationUriComplete: `${verificationUri}?code=${userCode}`,
      interval: INTERVAL_SECONDS,
      expiresIn: EXPIRES_SECONDS,
    });
  });

  app.post('/auth/device/token', async (c) => {
    const body = z.strictObject({ deviceCode: z.string().min(1).max(200) }).safeParse(await readJson(c.req.raw, 4096));
    if (!body.success) throw new HeedError('invalid_request', 'Send { deviceCode }, as POST /auth/device gave it.');
    const scope = deviceScope(body.data.deviceCode);
    const raw = await read(values, scope);
    if (raw === undefined) throw new HeedError('expired_token', 'This code has lapsed or was used: start again.');
    const record = JSON.parse(raw) as DeviceRecord;
    const at = now();
    if (Date.parse(record.expiresAt) <= at.getTime()) {
      await values.deleteValues(scope);
      throw new HeedError('expired_token', 'This code has lapsed: start again.');
    }
    if (record.status === 'denied') {
      await values.deleteValues(scope);
      throw new HeedError('access_denied', 'The person said no in the browser.');
    }
    if (record.status === 'pending') {
      const early = record.polledAt !== null && at.getTime() - Date.parse(record.polledAt) < INTERVAL_SECONDS * 1000;
      await values.swapValue(scope, 'device', raw, JSON.stringify({ ...record, polledAt: at.toISOString() }));
      if (early) throw new HeedError('slow_down', `Ask at most every ${INTERVAL_SECONDS} seconds.`);
      throw new HeedError('authorization_pending', 'Waiting for the person to approve this code in the browser.');
    }
    // Approved: taken once, so two polls never make two tokens.
    if (!(await values.swapValue(scope, 'device', raw, null)))
      throw new HeedError('expired_token', 'This code was just used: start again.');
    const made = await tokens.create(
      { userId: record.userId!, groups: record.groups ?? [] },
      { name: `heed inbox on ${record.clientName}`, scopes: ['read', 'answer'] },
    );
    return c.json({ token: made.token, tokenId: made.id, userId: record.userId, scopes: made.scopes });
  });

  // The person's side: signed in (a session, a proxy or a token, never a personal token).
  app.use('/auth/device/code', deps.auth);
  app.use('/auth/device/approve', deps.auth);
  app.use('/auth/device/deny', deps.auth);

  /** The pending code a person typed, or 404; past the bound of lookups a minute, 429 even for a right one. */
  async function pending(caller: Caller, userCode: string | undefined) {
    if (caller.userId === null) throw new HeedError('unauthorized', 'Sign in to approve a terminal.');
    if (caller.scopes)
      throw new HeedError('scope', 'A personal token cannot approve a terminal: sign in to the console.');
    const taken = lookups.take(caller.userId);
    if (!taken.ok)
      throw new HeedError('rate_limited', `Too many codes tried: try again in ${taken.retryAfterSeconds} s.`, {
        details: { retryAfterSeconds: taken.retryAfterSeconds },
      });
    const normal = normalize(userCode ?? '');
    const hash = normal ? await read(values, userCodeScope(normal)) : undefined;
    const scope = hash ? `heed:device:${hash}` : undefined;
    const raw = scope ? await read(values, scope) : undefined;
    const record = raw ? (JSON.parse(raw) as DeviceRecord) : undefined;
    if (!scope || !raw || !record || record.status !== 'pending' || Date.parse(record.expiresAt) <= now().getTime())
      throw new HeedError(
        'not_found',
        'No terminal is waiting with that code (it may have lapsed): check it, or start again.',
      );
    return { scope, raw, record, userCode: normal! };
  }

  app.get('/auth/device/code', async (c) => {
    const { record } = await pending(c.get('caller'), c.req.query('userCode'));
    return c.json({ clientName: record.clientName, expiresAt: record.expiresAt });
  });

  for (const outcome of ['approve', 'deny'] as const) {
    app.post(`/auth/device/${outcome}`, async (c) => {
      const body = z.strictObject({ userCode: z.string().max(20) }).safeParse(await readJson(c.req.raw, 4096));
      if (!body.success) throw new HeedError('invalid_request', 'Send { userCode }: the code the terminal shows.');
      const caller = c.get('caller');
      const found = await pending(caller, body.data.userCode);
      const next: DeviceRecord =
        outcome === 'approve'
          ? { ...found.record, status: 'approved', userId: caller.userId!, groups: [...(caller.groups ?? [])] }
          : { ...found.record, status: 'denied' };
      if (!(await values.swapValue(found.scope, 'device', found.raw, JSON.stringify(next))))
        throw new HeedError('not_found', 'That code was just answered.');
      await values.deleteValues(userCodeScope(found.userCode));
      return c.json({ status: next.status, clientName: found.record.clientName });
    });
  }
}

function newUserCode(): string {
  const letters = Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return `${letters.slice(0, 4).join('')}-${letters.slice(4).join('')}`;
}

/** `bcdf ghjk`, `BCDFGHJK` and `BCDF-GHJK` are the same code. */
function normalize(code: string): string | undefined {
  const letters = code.toUpperCase().replace(/[\s-]/g, '');
  if (letters.length !== 8 || [...letters].some((letter) => !ALPHABET.includes(letter))) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

const read = (values: Values, scope: string) => readValue(values, scope, 'device');
const deviceScope = (deviceCode: string) => hashedScope(SCOPES_OF.device, deviceCode);
const userCodeScope = (userCode: string) => hashedScope('heed:device-code', userCode);
