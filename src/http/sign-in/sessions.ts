import type { AuditInput, AuditRecorder } from '../../engine/audit.js';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { HeedError } from '../../errors.js';
import { hashedScope, readValue, SCOPES_OF } from './stored.js';
import type { Store } from '../../store/store.js';

/** The cookie that carries a session id: HttpOnly, SameSite=Lax, Secure when `publicUrl` is https. */
export const SESSION_COOKIE = 'heed_session';

/** The 403 a cookie write without its CSRF header gets. */
export function csrfRefusal(): HeedError {
  return new HeedError(
    'csrf',
    'This change came with the sign-in cookie but without the x-heed-csrf header (GET /auth/session gives it), so it was refused.',
  );
}

/** What a session keeps: who signed in, and when it was made and last used. */
export interface SessionRecord {
  userId: string;
  groups: string[];
  email?: string;
  createdAt: string;
  usedAt: string;
  /** The provider's ID token, sealed with the store's secret: the hint its end-session endpoint takes. */
  idToken?: string;
}

export interface SignedInSession extends SessionRecord {
  /** The token a write made with the session's cookie must carry as `x-heed-csrf`. */
  csrf: string;
  /** When it ends if not used again. */
  expiresAt: string;
}

type Values = Pick<Store, 'listValues' | 'swapValue' | 'deleteValues' | 'secret'>;

/** A session's last use is written at most this often: a page load is not a write each time. */
const TOUCH_EVERY_MS = 60_000;
const KEY = 'session';

/**
 * Sessions live in the store's values (every instance sees them, a restart keeps them), under a SHA-256 of
 * their id: the id itself, which the cookie carries, is never stored. They end after `sessionHours` unused,
 * or when deleted (sign-out).
 */
export class Sessions {
  constructor(
    private readonly values: Values,
    private readonly sessionHours: number,
    /** The audit log: a session is written with the sign-in's entry, in one transaction. */
    private readonly record: AuditRecorder,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Makes a new session (a new random id, so a cookie planted before sign-in never becomes one), recorded
   * with `entries` (the sign-in) in the same transaction.
   */
  async create(
    input: { userId: string; groups: string[]; email?: string; idToken?: string },
    entries: AuditInput[] = [],
  ): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const at = this.now().toISOString();
    const record: SessionRecord = {
      userId: input.userId,
      groups: input.groups,
      ...(input.email ? { email: input.email } : {}),
      createdAt: at,
      usedAt: at,
      ...(input.idToken ? { idToken: await this.seal(input.idToken) } : {}),
    };
    // A fresh random id: nothing is there to compare with.
    await this.record(entries, { put: [{ scope: scopeOf(id), key: KEY, value: JSON.stringify(record) }] });
    return id;
  }

  /** The session with this id, if it exists and has not lapsed; its last use is moved on. */
  async read(id: string): Promise<SignedInSession | undefined> {
    if (!/^[\w-]{20,100}$/.test(id)) return undefined;
    const scope = scopeOf(id);
    const raw = await readValue(this.values, scope, KEY);
    if (raw === undefined) return undefined;
    const record = JSON.parse(raw) as SessionRecord;
    const now = this.now();
    const idleMs = this.sessionHours * 3_600_000;
    if (now.getTime() - Date.parse(record.usedAt) >= idleMs) {
      await this.values.deleteValues(scope);
      return undefined;
    }
    let usedAt = record.usedAt;
    if (now.getTime() - Date.parse(record.usedAt) >= TOUCH_EVERY_MS) {
      const touched = { ...record, usedAt: now.toISOString() };
      // Another request may have touched it meanwhile, or signed out: either way this one stands as read.
      if (await this.values.swapValue(scope, KEY, raw, JSON.stringify(touched))) usedAt = touched.usedAt;
    }
    return {
      ...record,
      usedAt,
      csrf: await this.csrfOf(id),
      expiresAt: new Date(Date.parse(usedAt) + idleMs).toISOString(),
    };
  }

  /** Whether the session is still on (it exists and has not lapsed), without counting this as a use. */
  async alive(id: string): Promise<boolean> {
    const raw = await readValue(this.values, scopeOf(id), KEY);
    if (raw === undefined) return false;
    const record = JSON.parse(raw) as SessionRecord;
    return this.now().getTime() - Date.parse(record.usedAt) < this.sessionHours * 3_600_000;
  }

  /** Ends the session; its ID token (opened) is handed back for the provider's end-session hint. */
  async end(id: string): Promise<{ idToken?: string }> {
    const scope = scopeOf(id);
    const raw = await readValue(this.values, scope, KEY);
    await this.values.deleteValues(scope);
    if (raw === undefined) return {};
    const record = JSON.parse(raw) as SessionRecord;
    const idToken = record.idToken ? await this.open(record.idToken).catch(() => undefined) : undefined;
    return idToken ? { idToken } : {};
  }

  /** Whether `header` is the CSRF token of the session `id`, compared in constant time. */
  async csrfMatches(id: string, header: string | undefined): Promise<boolean> {
    if (!header) return false;
    const expected = Buffer.from(await this.csrfOf(id));
    const given = Buffer.from(header);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  // Read once per process, as the answer links' and channels' secrets are: `secret()` is a store round trip
  // (an insert and a select), and every request with the cookie needs the CSRF one. A failed read is not kept.
  private readonly secrets = new Map<string, Promise<string>>();

  private secret(name: string): Promise<string> {
    let found = this.secrets.get(name);
    if (!found) {
      found = this.values.secret(name);
      this.secrets.set(name, found);
      found.catch(() => this.secrets.delete(name));
    }
    return found;
  }

  private async csrfOf(id: string): Promise<string> {
    return createHmac('sha256', await this.secret('session-csrf'))
      .update(id)
      .digest('base64url');
  }

  private async key(): Promise<Buffer> {
    return createHash('sha256')
      .update(await this.secret('session-seal'))
      .digest();
  }

  private async seal(text: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.key(), iv);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
  }

  private async open(text: string): Promise<string> {
    const [iv, tag, sealed] = text.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', await this.key(), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  }
}

function scopeOf(id: string): string {
  return hashedScope(SCOPES_OF.session, id);
}
