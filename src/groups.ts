/**
 * Who a list of people names (docs/approvals.md, Groups). Approval policies' approvers, their escalation's
 * `to`, a request's assignees and `auth.admins` hold user ids and `group:<name>` entries side by side; this is
 * the one place that says whether such a list names a caller.
 */

/** What marks an entry as a group rather than a user id. */
export const GROUP_PREFIX = 'group:';

/** Whom a list is matched against: a user id (null when anonymous) and the groups they are in. */
export interface Member {
  userId: string | null;
  groups?: readonly string[];
}

/** True for a `group:<name>` entry. */
export function isGroupEntry(entry: string): boolean {
  return entry.startsWith(GROUP_PREFIX);
}

/**
 * The entries that name this person: their user id, and `group:<name>` for each of their groups. A user id
 * that itself starts with `group:` names nobody, so no user stands for a group by choosing such an id.
 */
export function entriesNaming(who: Member | null | undefined): string[] {
  if (!who?.userId) return [];
  const entries = isGroupEntry(who.userId) ? [] : [who.userId];
  for (const group of who.groups ?? []) if (group !== '') entries.push(GROUP_PREFIX + group);
  return entries;
}

/** True when `entries` names this person, by user id or through one of their groups. */
export function names(entries: readonly string[] | undefined, who: Member | null | undefined): boolean {
  if (!entries?.length) return false;
  return entriesNaming(who).some((entry) => entries.includes(entry));
}

/** The user id alone, as a member of no group: for a person known only by id (whom a delegate stands for). */
export function byId(userId: string | null | undefined): Member {
  return { userId: userId ?? null };
}
