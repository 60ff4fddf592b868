import type { Context } from 'hono';
import type { Caller } from '../caller.js';
import { HeedError } from '../errors.js';
import { names } from '../groups.js';
import type { HeedHooks } from '../hooks.js';
import type { AppEnv } from './route.js';

/** Who may use the operator routes: `notify.operators` (user ids) and `auth.admins` (user ids and `group:` entries). */
export interface OperatorRule {
  operators?: readonly string[];
  admins?: readonly string[];
}

/** The rule as a route reads it: the notifier's operators and the app's admins. */
export function operatorRule(c: Context<AppEnv>, host: Pick<HeedHooks, 'notifier'>): OperatorRule {
  return { operators: host.notifier.config.operators, admins: c.get('admins') };
}

/**
 * The operators are the people named in `notify.operators` and the admins of `auth.admins` (by user id or
 * group). They alone read what shows every conversation's traffic at once: the queue, the deliveries, the
 * metrics. Anyone else, anonymous callers too, gets 403.
 */
export function isOperator(caller: Caller, rule: OperatorRule): boolean {
  if (caller.userId === null) return false;
  return (rule.operators ?? []).includes(caller.userId) || names(rule.admins, caller);
}

/** Throws 403 `forbidden` unless the caller is an operator; `what` completes "may …". */
export function mustBeOperator(caller: Caller, rule: OperatorRule, what: string): void {
  if (isOperator(caller, rule)) return;
  throw new HeedError(
    'forbidden',
    `Only the admins named in auth.admins and the operators named in notify.operators may ${what}.`,
  );
}
