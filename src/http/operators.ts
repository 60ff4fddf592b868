import type { Caller } from '../caller.js';
import { HeedError } from '../errors.js';

/**
 * The operators are the people named in `notify.operators`. They alone read what shows every conversation's
 * traffic at once: the queue, the deliveries, the metrics. Anyone else, anonymous callers too, gets 403.
 */
export function isOperator(caller: Caller, operators: readonly string[] | undefined): boolean {
  return caller.userId !== null && (operators ?? []).includes(caller.userId);
}

/** Throws 403 `forbidden` unless the caller is an operator; `what` completes "may …". */
export function mustBeOperator(caller: Caller, operators: readonly string[] | undefined, what: string): void {
  if (isOperator(caller, operators)) return;
  throw new HeedError('forbidden', `Only the operators named in notify.operators may ${what}.`);
}
