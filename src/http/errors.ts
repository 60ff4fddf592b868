import { z } from 'zod';
import { HeedError } from '../errors.js';
import { boundedErrorBody } from './error-body.js';
import { clip } from '../kinds/clip.js';

export type { ErrorBody } from '../protocol/error-body.js';
import type { ErrorBody } from '../protocol/error-body.js';

/** Turns anything thrown by a route into a HeedError; internals of unknown errors never reach the client. */
export function toHeedError(thrown: unknown): HeedError {
  if (HeedError.isInstance(thrown)) return thrown;
  if (thrown instanceof z.ZodError) return invalidRequest(thrown);
  return new HeedError('internal_error', 'Something went wrong on the server; the request was not completed.', {
    cause: thrown,
  });
}

/** A JSON response for an error, with the status its code maps to. */
export function errorResponse(thrown: unknown): Response {
  const error = toHeedError(thrown);
  if (error.code === 'internal_error' && !HeedError.isInstance(thrown)) {
    console.error('heed: unexpected error while answering a request', thrown);
  }
  if (error.code === 'store_unavailable') logOutage(error.cause);
  const response = Response.json(boundedErrorBody(error) satisfies ErrorBody, { status: error.status });
  // A limit that says when to come back says it in the header clients and proxies read.
  const retryAfter = error.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number') response.headers.set('retry-after', String(retryAfter));
  return response;
}

let lastOutageLog = 0;

/** The operator hears of a database outage once every 10 s at most, with its cause, however many requests it fails. */
function logOutage(cause: unknown): void {
  const now = Date.now();
  if (now - lastOutageLog < 10_000) return;
  lastOutageLog = now;
  const reason =
    cause instanceof Error ? `${(cause as { code?: string }).code ?? cause.name}: ${cause.message}` : String(cause);
  console.error(
    `heed: the database cannot be reached or written (${reason}); answering 503 store_unavailable meanwhile`,
  );
}

/** A zod failure as a 400 that names the field (and lists every problem in `details.issues`). */
export function invalidRequest(error: z.ZodError, where = 'body'): HeedError {
  // The first issues, each cut short: a request with thousands of stray keys gets a short answer.
  const issues = error.issues
    .slice(0, 20)
    .map((issue) => ({ path: clip(issue.path.map(String).join('.')), message: clip(issue.message) }));
  const first = issues[0];
  const field = first?.path ? `${where}.${first.path}` : where;
  return new HeedError('invalid_request', `The request is not valid: ${field}: ${first?.message ?? 'invalid'}.`, {
    details: { field, issues },
  });
}

/** A request's body as text, at most `maxBytes` (413 `payload_too_large` past it): for senders that sign the raw bytes. */
export async function readText(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && !request.headers.has('transfer-encoding') && Number(declared) > maxBytes)
    throw tooLarge(maxBytes);
  return readCapped(request, maxBytes);
}

/**
 * Reads a JSON body of at most `maxBytes` (413 `payload_too_large` beyond); an empty body reads as
 * `{}`, anything that is not JSON is a 400. A declared length is checked before reading, so on Node
 * the body is read straight from the socket (touching `request.body` would build a web stream first).
 */
export async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const declared = request.headers.get('content-length');
  let text: string;
  if (declared !== null && !request.headers.has('transfer-encoding')) {
    if (Number(declared) > maxBytes) throw tooLarge(maxBytes);
    text = await request.text();
  } else {
    text = await readCapped(request, maxBytes);
  }
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HeedError('invalid_request', 'The request body is not valid JSON.', { details: { field: 'body' } });
  }
  checkShape(value);
  return value;
}

/** The 413 for a body past `maxBytes`. */
function tooLarge(maxBytes: number): HeedError {
  return new HeedError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, {
    details: { maxBytes },
  });
}

/** Deepest nesting of objects and lists a request body may have. */
export const MAX_BODY_DEPTH = 64;

type Node = { value: unknown; depth: number; key?: string; parent?: Node };

/**
 * Refuses what parses as JSON but would hurt later: nesting deeper than `MAX_BODY_DEPTH` (copying or
 * writing it would overflow the stack), and a `__proto__` key, which an object built from the body
 * (a zod record, say) would take as its prototype instead of as a key. Iterative, so depth costs nothing.
 */
function checkShape(root: unknown): void {
  const stack: Node[] = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value, depth } = node;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_BODY_DEPTH) {
      throw new HeedError(
        'invalid_request',
        `The request body nests objects and lists more than ${MAX_BODY_DEPTH} levels deep.`,
        {
          details: { field: fieldOf(node), maxDepth: MAX_BODY_DEPTH },
        },
      );
    }
    if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, depth: depth + 1, key: String(index), parent: node }));
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const child: Node = { value: item, depth: depth + 1, key, parent: node };
      if (key === '__proto__') {
        throw new HeedError('invalid_request', 'The request body may not use "__proto__" as a key.', {
          details: { field: fieldOf(child) },
        });
      }
      stack.push(child);
    }
  }
}

function fieldOf(node: Node): string {
  const keys: string[] = [];
  for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.unshift(at.key);
  return ['body', ...keys].join('.');
}

async function readCapped(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined); // the body is refused either way: the 413 below is the answer
      throw tooLarge(maxBytes);
    }
    text += decoder.decode(value, { stream: true });
  }
}
