import { HeedClientError, type HeedClient } from '../../client/index.js';

// Whole escape sequences first, so their parameters (an OSC 8 link's address, a window title) go with them:
// CSI (ESC [ or 0x9B) with its parameters and final byte; OSC, DCS, SOS, PM and APC (ESC ] P X ^ _ or their
// 8-bit forms) up to BEL or ST, or to the end when unterminated; any other ESC with its intermediates and final.
const SEQUENCE =
  /(?:\u001B\[|\u009B)[\u0020-\u003F]*[\u0040-\u007E]?|(?:\u001B[\]PX^_]|[\u0090\u0098\u009D\u009E\u009F])[^\u0007\u001B\u009C]*(?:\u0007|\u001B\\|\u009C)?|\u001B[\u0020-\u002F]*[\u0030-\u007E]?/g;
// What is left of C0 (but newline and tab, which the views lay out), DEL and C1.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * A text from the server as the terminal may print it: no escape sequence, no control character but
 * newline and tab (CR LF becomes LF). Titles, arguments and messages come from agents and callers, and a
 * terminal obeys what it prints (a disguised OSC 8 link, an OSC 0 window title, an OSC 52 clipboard write).
 */
export function terminalText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(SEQUENCE, '').replace(CONTROL, '');
}

/** `value` with every string in it, object keys included, made `terminalText`. */
export function terminalSafe<T>(value: T): T {
  if (typeof value === 'string') return terminalText(value) as T;
  if (Array.isArray(value)) return value.map((item) => terminalSafe(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const clean: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) clean[terminalText(key)] = terminalSafe(item);
  return clean as T;
}

const safeMarker = Symbol.for('heed.terminalSafeClient');

/**
 * The client the terminal inbox reads through: every answer, streamed event and error message from the
 * server arrives `terminalSafe`, so no view can print a server's text raw.
 */
export function terminalSafeClient<T extends HeedClient>(client: T): T {
  if (Reflect.get(client, safeMarker)) return client;
  return wrap(client) as T;
}

function wrap(target: object): object {
  return new Proxy(target, {
    get(object, property, receiver) {
      if (property === safeMarker) return true;
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value === 'function') return (...args: unknown[]) => safeResult(value.apply(object, args));
      // Sub-clients such as `requests`.
      if (value !== null && typeof value === 'object') return wrap(value);
      return value;
    },
  });
}

function safeResult(result: unknown): unknown {
  if (result instanceof Promise)
    return result.then(terminalSafe, (thrown: unknown) => Promise.reject(safeError(thrown)));
  if (isAsyncIterator(result)) return safeEvents(result);
  return terminalSafe(result);
}

async function* safeEvents(events: AsyncGenerator<unknown>): AsyncGenerator<unknown> {
  try {
    for await (const event of events) yield terminalSafe(event);
  } catch (thrown) {
    throw safeError(thrown);
  }
}

function safeError(thrown: unknown): unknown {
  if (!HeedClientError.isInstance(thrown)) return thrown;
  return new HeedClientError(thrown.status, {
    code: thrown.code,
    message: terminalText(thrown.message),
    ...(thrown.details ? { details: terminalSafe(thrown.details) } : {}),
  } as ConstructorParameters<typeof HeedClientError>[1]);
}

function isAsyncIterator(value: unknown): value is AsyncGenerator<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AsyncGenerator<unknown>)[Symbol.asyncIterator] === 'function' &&
    typeof (value as AsyncGenerator<unknown>).next === 'function'
  );
}
