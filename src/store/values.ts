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

/** Whether `actionId` names the one pending action among `actions` (`ConversationParts.messagesWhenClosing`). */
export function closesPause(actions: Array<{ id: string; status: string }>, actionId: string): boolean {
  return (
    actions.some((action) => action.id === actionId && action.status === 'pending') &&
    actions.every((action) => action.status !== 'pending' || action.id === actionId)
  );
}
