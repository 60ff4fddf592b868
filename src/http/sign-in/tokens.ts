import { randomBytes } from 'node:crypto';
import type { Caller } from '../../caller.js';
import { HeedError } from '../../errors.js';
import type { AuditRecorder } from '../../engine/audit.js';
import { hashedScope, readValue, SCOPES_OF, sha256Hex, type Values } from './stored.js';

/** What a personal token may do (docs/auth.md): each route says which one it needs. */
export const SCOPES = ['read', 'answer', 'converse', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Every personal token starts so: a leaked one is easy to find in logs and by secret scanners. */
const PREFIX = 'heed_pat_';
/** A token's last use is written at most this often. */
const TOUCH_EVERY_MS = 60_000;

/** A personal token as listed: never its secret. */
export interface TokenInfo {
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

interface TokenRecord extends TokenInfo {
  userId: string;
  /** The groups of the person when they made it. */
  groups: string[];
}

/**
 * Personal tokens a signed-in person makes for scripts and the terminal. Each lives in the store's values
 * under a SHA-256 of its secret (shown once, never stored), with an index by person for listing and
 * revoking; a lookup reads the store every time, so a revoked token stops at once on every instance.
 */
export class PersonalTokens {
  constructor(
    private readonly values: Values,
    private readonly now: () => Date,
    /** Where token creation and revocation are recorded (the audit log). */
    private readonly audit: AuditRecorder,
  ) {}

  /** Makes a token; its secret is in the answer and nowhere else. */
  async create(
    person: { userId: string; groups: string[] },
    input: { name: string; scopes: Scope[]; expiresInDays?: number },
  ): Promise<TokenInfo & { token: string }> {
    const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
    const at = this.now();
    const record: TokenRecord = {
      id: `pat_${randomBytes(9).toString('base64url')}`,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      createdAt: at.toISOString(),
      lastUsedAt: null,
      expiresAt:
        input.expiresInDays === undefined
          ? null
          : new Date(at.getTime() + input.expiresInDays * 86_400_000).toISOString(),
      userId: person.userId,
      groups: person.groups,
    };
    const hash = sha256Hex(token);
    // The token, its entry in the person's list and the audit entry: one transaction. Fresh random ids: nothing to compare with.
    await this.audit(
      [
        {
          at: record.createdAt,
          actor: person.userId,
          verb: 'token.create',
          decision: record.scopes.join(' '),
          surface: 'api',
        },
      ],
      {
        put: [
          { scope: tokenScope(hash), key: 'token', value: JSON.stringify(record) },
          { scope: ownerScope(person.userId), key: record.id, value: hash },
        ],
      },
    );
    return { ...info(record), token };
  }

  /** The person's tokens, newest first (lapsed ones too, marked by `expiresAt`). */
  async list(userId: string): Promise<TokenInfo[]> {
    const found: TokenRecord[] = [];
    for (const { value: hash } of await this.values.listValues(ownerScope(userId))) {
      const record = await this.read(hash);
      if (record) found.push(record);
    }
    return found.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map(info);
  }

  /** Revokes one of the person's tokens; false when they have none with that id. */
  async revoke(userId: string, id: string): Promise<boolean> {
    const hash = await readValue(this.values, ownerScope(userId), id);
    if (hash === undefined) return false;
    await this.audit([{ at: this.now().toISOString(), actor: userId, verb: 'token.revoke', surface: 'api' }], {
      drop: [{ scope: tokenScope(hash) }, { scope: ownerScope(userId), keys: [id] }],
    });
    return true;
  }

  /** Whether `bearer` looks like a personal token (so an unknown one is not looked for elsewhere). */
  static isOne(bearer: string): boolean {
    return bearer.startsWith(PREFIX);
  }

  /** The caller a personal token stands for, or null when it is unknown, revoked or lapsed. */
  async caller(bearer: string): Promise<Caller | null> {
    const hash = sha256Hex(bearer);
    const record = await this.live(hash);
    if (!record) return null;
    const now = this.now();
    if (record.lastUsedAt === null || now.getTime() - Date.parse(record.lastUsedAt) >= TOUCH_EVERY_MS) {
      const raw = JSON.stringify(record);
      // Losing this race to another request only loses a more precise "last used".
      await this.values.swapValue(
        tokenScope(hash),
        'token',
        raw,
        JSON.stringify({ ...record, lastUsedAt: now.toISOString() }),
      );
    }
    return {
      userId: record.userId,
      groups: record.groups,
      scopes: record.scopes,
      data: { signedIn: 'personal-token', tokenId: record.id },
      // A stream it opened ends when it is revoked.
      stillSignedIn: async () => (await this.live(hash)) !== undefined,
    };
  }

  private async live(hash: string): Promise<TokenRecord | undefined> {
    const record = await this.read(hash);
    if (!record) return undefined;
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= this.now().getTime()) return undefined;
    return record;
  }

  private async read(hash: string): Promise<TokenRecord | undefined> {
    const raw = await readValue(this.values, tokenScope(hash), 'token');
    return raw === undefined ? undefined : (JSON.parse(raw) as TokenRecord);
  }
}

/** Throws 403 `scope` when the caller is a personal token without `scope`; any other caller passes. */
export function mustHaveScope(caller: Pick<Caller, 'scopes'> | undefined, scope: Scope): void {
  if (caller?.scopes && !caller.scopes.includes(scope)) throw scopeRefusal(scope);
}

/** 403 `scope` for a personal token used beyond what it was given. */
export function scopeRefusal(scope: Scope | 'session'): HeedError {
  if (scope === 'session')
    return new HeedError(
      'scope',
      'Personal tokens are made and revoked from a signed-in session (the console), not with another personal token.',
      { details: { scope } },
    );
  return new HeedError('scope', `This personal token lacks the "${scope}" scope this needs; make one that has it.`, {
    details: { scope },
  });
}

function info(record: TokenRecord): TokenInfo {
  const { id, name, scopes, createdAt, lastUsedAt, expiresAt } = record;
  return { id, name, scopes, createdAt, lastUsedAt, expiresAt };
}

const tokenScope = (hash: string) => `${SCOPES_OF.token}:${hash}`;
const ownerScope = (userId: string) => hashedScope(SCOPES_OF.tokensOf, userId);
