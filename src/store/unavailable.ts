import { HeedError } from '../errors.js';
import type { Store } from './store.js';

/** What a client is told to wait before trying again while the store is out (the `Retry-After` header). */
export const STORE_RETRY_AFTER_SECONDS = 5;

// SQLite result codes (better-sqlite3's `code`, extended codes included) that say the file cannot be
// written or read right now: a full disk, a lock held past the busy timeout, an I/O error. A corrupt
// file or a broken constraint is not among them: waiting does not cure those.
const SQLITE_OUTAGE = /^SQLITE_(FULL|BUSY|LOCKED|IOERR|CANTOPEN|PROTOCOL|NOMEM|READONLY)(_|$)/;

// Errors of the connection itself (Node's `code`): the server is down, restarting or out of reach.
const NETWORK_OUTAGE = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

// PostgreSQL SQLSTATEs: connection exceptions (08…), the server shutting down or starting (57P01–57P03),
// insufficient resources such as a full disk or too many connections (53…), system and I/O errors (58…),
// and a read-only server (25006, a standby after a failover).
const POSTGRES_OUTAGE = /^(08...|57P0[1-3]|53...|58...|25006)$/;

// What `pg` and its pool say, without a code, when a connection is lost or cannot be had in time.
const CLIENT_OUTAGE = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Connection ended unexpectedly',
];

/**
 * True when an error thrown by a store means the database is out of reach or cannot write for now
 * (infrastructure, not the request or the agent): a full disk, a lock held too long, a lost or refused
 * connection, a server restarting, a query that got no answer in time.
 */
export function isStoreOutage(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  if (HeedError.isInstance(error)) return error.code === 'store_unavailable';
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string' && (SQLITE_OUTAGE.test(code) || NETWORK_OUTAGE.has(code) || POSTGRES_OUTAGE.test(code)))
    return true;
  if (typeof message === 'string' && CLIENT_OUTAGE.some((text) => message.startsWith(text))) return true;
  // Node reports a refused connection to every address of a name as an AggregateError of them.
  if (Array.isArray(errors) && errors.some((inner) => isStoreOutage(inner, depth + 1))) return true;
  return cause !== undefined && isStoreOutage(cause, depth + 1);
}

/**
 * True for the error a guarded store throws for an outage. Where errors of other origins meet (a turn:
 * the model's, the store's), only this tells the store's outage apart: a model provider's connection
 * reset carries the same `ECONNRESET` and is the model's failure.
 */
export function isStoreUnavailable(error: unknown): error is HeedError {
  return HeedError.isInstance(error) && error.code === 'store_unavailable';
}

/** The error a client sees while the store is out: 503 `store_unavailable`, with when to try again. */
export function storeUnavailable(cause: unknown): HeedError {
  return new HeedError(
    'store_unavailable',
    `The database cannot be reached or written right now; try again in ${STORE_RETRY_AFTER_SECONDS} seconds.`,
    {
      details: { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS },
      cause,
    },
  );
}

const guarded = Symbol.for('heed.guarded-store');

/**
 * The store with every outage error it throws turned into `store_unavailable` (anything else passes
 * as it is), so whoever meets one, wherever, can tell the database from the agent or the request.
 */
export function guardStore(store: Store): Store {
  if (Reflect.get(store, guarded)) return store;
  const wrapped = new Map<PropertyKey, unknown>();
  const translate = (error: unknown): never => {
    throw !HeedError.isInstance(error) && isStoreOutage(error) ? storeUnavailable(error) : error;
  };
  return new Proxy(store, {
    get(target, key) {
      if (key === guarded) return true;
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let method = wrapped.get(key);
      if (!method) {
        const original = value as (...args: unknown[]) => unknown;
        method = (...args: unknown[]) => {
          try {
            const result = original.apply(target, args);
            return result instanceof Promise ? result.catch(translate) : result;
          } catch (error) {
            return translate(error);
          }
        };
        wrapped.set(key, method);
      }
      return method;
    },
  });
}
