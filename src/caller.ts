/**
 * Who is calling: a user id (null when anonymous) plus whatever the app attached (roles, tenant…).
 * Library calls made without a caller act as the conversation's owner.
 */
export interface Caller {
  userId: string | null;
  data?: Record<string, unknown>;
}

export const systemCaller: Caller = { userId: null, data: { system: true } };

/** What the record says about who settled something. */
export function callerLabel(caller: Caller | null): string {
  return caller?.userId ?? 'anonymous';
}
