import type { ErasureCounts, Store } from '../store/store.js';
import { auditAppend, erasedName, personKey, pseudonymKey } from './audit.js';
import { DELEGATION_SCOPE } from './delegation.js';
import { participationScope } from './participants.js';

/** Who erases whom, and the values above the engine that name the person (sign-in's sessions and tokens). */
export interface EraseInput {
  userId: string;
  /** The admin who erases (`system:cli`: `heed erase`, run by whoever holds the database). */
  by: string | null;
  surface: string;
  at: string;
  valuePrefixes: string[];
  valueScopes: string[];
}

/**
 * Erases a person (docs/operating.md, Erasing a person): their own conversations, sessions, tokens, delegations
 * (theirs and those to them) and remembered tools go; their id in others' records becomes `erased:<8 hex>`,
 * stable for that id; the audit log keeps its chain and forgets whom their pseudonym named. The erasure is itself
 * an audit entry (naming the pseudonym only), written in the same transaction.
 *
 * What layers above keep of the person in the store's values comes in `valueScopes` (a whole scope per person)
 * and `valuePrefixes` (scopes whose values name the person): src/http/person-values.ts.
 */
export async function erasePerson(
  store: Pick<Store, 'secret' | 'erasePerson'>,
  input: EraseInput,
): Promise<ErasureCounts> {
  const key = await pseudonymKey(store);
  const pseudonym = erasedName(key, input.userId);
  const auditKey = personKey(key, input.userId);
  const audit = auditAppend(key, [
    { at: input.at, actor: input.by, verb: 'erase', decision: pseudonym, surface: input.surface },
  ]);
  return store.erasePerson({
    userId: input.userId,
    pseudonym,
    auditKey,
    valuePrefixes: [DELEGATION_SCOPE, ...input.valuePrefixes],
    valueScopes: [...input.valueScopes, participationScope(input.userId)],
    // An admin erasing themselves: the entry names them by the pseudonym, never again by their id.
    audit: { ...audit, people: audit.people.filter((person) => person.key !== auditKey) },
  });
}
