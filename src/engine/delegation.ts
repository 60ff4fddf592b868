import { HeedError } from '../errors.js';
import { recordAudit } from './audit.js';
import { byId } from '../groups.js';
import { namesApprover } from '../kinds/approval-policy.js';
import type { Store } from '../store/store.js';
import type { ActionRecord, ConversationRecord } from '../types.js';

/**
 * Delegation (docs/approvals.md, Delegation): a signed-in person hands what waits on them to another
 * person until a time. Kept in the store's value table (scope below, key = the person who delegates), so it
 * holds across restarts and for every process on the same store; a delegation past its `until` is over
 * whether or not it was cleared (read against the engine's clock).
 */
export interface Delegation {
  /** The user id who answers for `from` meanwhile. */
  to: string;
  /** When it ends; absent: until cleared. */
  until?: string;
  /** When it was set. */
  since: string;
}

/** One delegation held for the caller: whom they stand for and until when. */
export interface HeldDelegation {
  from: string;
  until?: string;
}

/** Where delegations are kept: key = who delegates, value = JSON naming the delegate. */
export const DELEGATION_SCOPE = 'heed:delegation';
const MAX_ID = 200;

/** The delegations in force at `now`, keyed by who delegated. */
async function allInForce(store: Store, now: string): Promise<Map<string, Delegation>> {
  const held = new Map<string, Delegation>();
  for (const { key, value } of await store.listValues(DELEGATION_SCOPE)) {
    try {
      const parsed = JSON.parse(value) as Delegation;
      if (typeof parsed.to === 'string' && (parsed.until === undefined || parsed.until > now)) held.set(key, parsed);
    } catch {
      // A value this code did not write is no delegation.
    }
  }
  return held;
}

/** Who answers for whom at `now`: each delegation in force, as who delegated → their delegate. */
export async function delegatesInForce(store: Store, now: string): Promise<Map<string, string>> {
  return new Map([...(await allInForce(store, now))].map(([from, delegation]) => [from, delegation.to]));
}

/** The caller's own delegation in force at `now`, if any. */
export async function delegationOf(store: Store, userId: string, now: string): Promise<Delegation | undefined> {
  return (await allInForce(store, now)).get(userId);
}

/**
 * Whom `userId` answers for at `now`: the people whose delegation to them is in force. Not transitive: a
 * delegate's own delegation does not pass on what was delegated to them.
 */
export async function heldBy(store: Store, userId: string | null | undefined, now: string): Promise<HeldDelegation[]> {
  if (!userId) return [];
  const held: HeldDelegation[] = [];
  for (const [from, delegation] of await allInForce(store, now)) {
    if (delegation.to === userId && from !== userId)
      held.push({ from, ...(delegation.until !== undefined ? { until: delegation.until } : {}) });
  }
  return held.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
}

function refuse(field: string, reason: string, sentence: string): HeedError {
  return new HeedError('invalid_request', sentence, { details: { field, reason } });
}

/**
 * Sets `from`'s delegation after checking it: `to` another person, `until` a time after `now`, and no
 * cycle with the delegations in force (ada → grace while grace → ada). 400 `invalid_request` with
 * `details.reason` otherwise, nothing stored.
 */
export async function setDelegation(
  store: Store,
  from: string,
  input: { to?: unknown; until?: unknown },
  now: string,
): Promise<Delegation> {
  const { to, until } = input;
  if (typeof to !== 'string' || to.trim() === '' || to.length > MAX_ID)
    throw refuse('to', 'invalid', '`to` must be the user id of the person who answers for you.');
  if (to === from) throw refuse('to', 'self', 'You cannot delegate to yourself.');
  let end: string | undefined;
  if (until !== undefined && until !== null) {
    const ms = typeof until === 'string' && /^\d{4}-\d\d-\d\dT/.test(until) ? Date.parse(until) : Number.NaN;
    if (Number.isNaN(ms)) throw refuse('until', 'invalid', '`until` must be an ISO time, e.g. 2026-03-01T09:00:00Z.');
    end = new Date(ms).toISOString();
    if (end <= now) throw refuse('until', 'past', '`until` must be a time in the future.');
  }
  const inForce = await allInForce(store, now);
  // Following `to`'s own delegation (and so on) must not lead back: who would then answer?
  const seen = new Set([from]);
  for (let next: string | undefined = to; next !== undefined; next = inForce.get(next)?.to) {
    if (seen.has(next))
      throw refuse(
        'to',
        'cycle',
        `${to} has handed their requests on to you (or back through others); that would be a cycle.`,
      );
    seen.add(next);
  }
  const delegation: Delegation = { to, ...(end !== undefined ? { until: end } : {}), since: now };
  // The delegate is the entry's `onBehalfOf` (the other person it names), so the chain holds no id.
  await recordAudit(
    store,
    [
      {
        at: now,
        actor: from,
        onBehalfOf: to,
        verb: 'delegation.set',
        decision: end ?? 'until cleared',
        surface: 'api',
      },
    ],
    { put: [{ scope: DELEGATION_SCOPE, key: from, value: JSON.stringify(delegation) }] },
  );
  return delegation;
}

/** Ends `from`'s delegation now (nothing to do when there is none). */
export async function clearDelegation(store: Store, from: string, now: string): Promise<void> {
  await recordAudit(store, [{ at: now, actor: from, verb: 'delegation.clear', surface: 'api' }], {
    drop: [{ scope: DELEGATION_SCOPE, keys: [from] }],
  });
}

/** True when a pending action waits on one of `people`: it names them among its approvers, or they own the conversation. */
export function waitsOnAny(
  action: ActionRecord,
  conversation: ConversationRecord,
  people: string[] | undefined,
): boolean {
  if (action.status !== 'pending' || !people?.length) return false;
  return people.some((id) => namesApprover(action, byId(id)) || id === conversation.ownerId);
}
