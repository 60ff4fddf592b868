import { createHash } from 'node:crypto';
import { extended } from '../objects.js';

/*
 * The audit log (docs/operating.md, The audit log): one hash chain per store. The store numbers each entry and
 * chains it to the one before in the transaction that writes the decision, so a decision never stands without
 * its entry. The rule of the chain is here, once; the stores and `heed audit verify` use it.
 */

/** The `prevHash` of the first entry ever written. */
export const ZERO_HASH = '0'.repeat(64);

/** What was decided. */
export type AuditVerb =
  | 'answer'
  | 'vote'
  | 'lapse'
  | 'cancel'
  | 'extend'
  | 'delegation.set'
  | 'delegation.clear'
  | 'token.create'
  | 'token.revoke'
  | 'sign-in'
  | 'erase';

/**
 * An entry to append, as a decision writes it: people only by their pseudonym (`p_` + 16 hex), or `system`,
 * `system:timeout`, `anonymous` when no person decided.
 */
export interface NewAuditEntry {
  at: string;
  actorKey: string;
  onBehalfOfKey?: string;
  verb: AuditVerb;
  conversationId?: string;
  actionId?: string;
  toolName?: string;
  /** Lowercase hex SHA-256 of the canonical JSON of the arguments an approval was about. */
  argsSha256?: string;
  decision?: string;
  /** Where it was decided: `api`, `link`, `slack`, `timeout`, `remembered`, `system`, `console`… */
  surface: string;
}

/** Who a pseudonym stands for (kept apart from the chain, so erasure can forget it). */
export interface AuditPerson {
  key: string;
  userId: string;
}

/** What a commit appends: the entries, and the pseudonyms they name. */
export interface AuditAppend {
  entries: NewAuditEntry[];
  people: AuditPerson[];
}

/** An entry as chained: everything the hash covers. */
export interface ChainedEntry extends NewAuditEntry {
  seq: number;
  prevHash: string;
}

/** An entry as read: the chained fields, its hash, and who the pseudonyms name (display only, not hashed). */
export interface AuditEntry extends ChainedEntry {
  /** The user id, `erased:<8 hex>` once erased, or the system name the key holds. */
  actor: string;
  onBehalfOf?: string;
  hash: string;
}

/** Where verification starts: the last pruned entry (seq 0 and 64 zeros when nothing was pruned). */
export interface AuditAnchor {
  seq: number;
  hash: string;
}

/** JSON with keys sorted at every level, no whitespace, undefined fields left out. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The chained fields of an entry: without `hash` and the display fields. */
export function chainedFields(entry: ChainedEntry | AuditEntry): ChainedEntry {
  const { hash: _hash, actor: _actor, onBehalfOf: _onBehalfOf, ...chained } = entry as AuditEntry;
  return chained;
}

/** `sha256(prevHash + "\n" + canonical JSON of the chained fields)`, lowercase hex. */
export function auditHash(entry: ChainedEntry | AuditEntry): string {
  return sha256Hex(`${entry.prevHash}\n${canonicalJson(chainedFields(entry))}`);
}

/** Numbers and chains `entries` after `head`; each with its hash. */
export function chainAfter(head: AuditAnchor, entries: NewAuditEntry[]): Array<{ entry: ChainedEntry; hash: string }> {
  const out: Array<{ entry: ChainedEntry; hash: string }> = [];
  let { seq, hash } = head;
  for (const next of entries) {
    seq += 1;
    const entry: ChainedEntry = extended(next, { seq, prevHash: hash });
    hash = auditHash(entry);
    out.push({ entry, hash });
  }
  return out;
}

/** An entry as read back, with its display fields filled from the pseudonym table. */
export function withDisplay(
  entry: ChainedEntry,
  hash: string,
  people: (key: string) => string | undefined,
): AuditEntry {
  const name = (key: string) => (key.startsWith('p_') ? (people(key) ?? `erased:${key.slice(2, 10)}`) : key);
  return {
    ...entry,
    actor: name(entry.actorKey),
    ...(entry.onBehalfOfKey !== undefined ? { onBehalfOf: name(entry.onBehalfOfKey) } : {}),
    hash,
  };
}

export type ChainCheck = { ok: true; count: number } | { ok: false; seq: number; reason: string };

/**
 * Checks entries one by one, in order, against the chain's rule, from `anchor` (absent: the first entry's own
 * prevHash, which must be 64 zeros when it is seq 1). `next` answers the first failure; `done` the count.
 */
export function chainChecker(anchor?: AuditAnchor) {
  let count = 0;
  let previous: AuditAnchor | undefined = anchor;
  return {
    next(entry: AuditEntry): Extract<ChainCheck, { ok: false }> | undefined {
      if (previous === undefined && entry.seq === 1 && entry.prevHash !== ZERO_HASH)
        return { ok: false, seq: entry.seq, reason: 'the first entry does not start from 64 zeros' };
      if (previous !== undefined) {
        if (entry.seq !== previous.seq + 1)
          return { ok: false, seq: entry.seq, reason: `seq ${previous.seq + 1} is missing before it` };
        if (entry.prevHash !== previous.hash)
          return { ok: false, seq: entry.seq, reason: 'its prevHash is not the hash of the entry before' };
      }
      if (auditHash(entry) !== entry.hash)
        return { ok: false, seq: entry.seq, reason: 'its hash does not match its fields' };
      previous = { seq: entry.seq, hash: entry.hash };
      count++;
      return undefined;
    },
    done: (): ChainCheck => ({ ok: true, count }),
  };
}

/** `chainChecker` over a list. */
export function verifyChain(entries: Iterable<AuditEntry>, anchor?: AuditAnchor): ChainCheck {
  const checker = chainChecker(anchor);
  for (const entry of entries) {
    const bad = checker.next(entry);
    if (bad) return bad;
  }
  return checker.done();
}

/** At most this many entries are pruned a call (the sweep's next run takes the rest). */
export const PRUNE_BATCH = 10_000;

/** Of the oldest entries (in seq order), the last of those before `before` with none after it from the front. */
export function lastToPrune<T extends { at: number }>(front: T[], before: number): T | undefined {
  let last: T | undefined;
  for (const row of front) {
    if (row.at >= before) break;
    last = row;
  }
  return last;
}
