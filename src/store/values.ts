// Small conversions every store shares.

/** A value as a JSON column: null stays SQL NULL. */
export function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** A page's size: the caller's limit (or the store's default), never negative or fractional. */
export function pageSize(limit: number | undefined, fallback: number): number {
  return Math.max(0, Math.floor(limit ?? fallback));
}

/** Orders strings by code unit, as the SQL stores' BINARY/"C" collation does. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The object without its undefined fields (a patch sets only what it names). */
export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export const DAY_MS = 86_400_000;

/** The channels that are not a person's answer: a lapse, Heed itself, a remembered approval. */
export const notAPerson = ['system', 'timeout', 'remembered'] as const;

/** Whether an action settled through `channel` was answered by a person (time to decision counts only those). */
export function byPerson(channel: string | null): boolean {
  return channel !== null && !(notAPerson as readonly string[]).includes(channel);
}

/** Whether `actionId` names the one pending action among `actions` (`ConversationParts.messagesWhenClosing`). */
export function closesPause(actions: Array<{ id: string; status: string }>, actionId: string): boolean {
  return (
    actions.some((action) => action.id === actionId && action.status === 'pending') &&
    actions.every((action) => action.status !== 'pending' || action.id === actionId)
  );
}
