import { z } from 'zod';
import { HeedError } from '../errors.js';

/** The wire form of every error: `{ error: { code, message, details? } }`. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Turns anything thrown by a route into a HeedError; internals of unknown errors never reach the client. */
export function toHeedError(thrown: unknown): HeedError {
  if (HeedError.isInstance(thrown)) return thrown;
  if (thrown instanceof z.ZodError) return invalidRequest(thrown);
  return new HeedError('internal_error', 'Something went wrong on the server; the request was not completed.', { cause: thrown });
}

/** A JSON response for an error, with the status its code maps to. */
export function errorResponse(thrown: unknown): Response {
  const error = toHeedError(thrown);
  if (error.code === 'internal_error' && !HeedError.isInstance(thrown)) {
    console.error('heed: unexpected error while answering a request', thrown);
  }
  return Response.json(error.toJSON() satisfies ErrorBody, { status: error.status });
}

/** A zod failure as a 400 that names the field (and lists every problem in `details.issues`). */
export function invalidRequest(error: z.ZodError, where = 'body'): HeedError {
  const issues = error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  const first = issues[0];
  const field = first?.path ? `${where}.${first.path}` : where;
  return new HeedError('invalid_request', `The request is not valid: ${field}: ${first?.message ?? 'invalid'}.`, {
    details: { field, issues },
  });
}

/**
 * Reads a JSON body of at most `maxBytes` (413 `payload_too_large` beyond); an empty body reads as
 * `{}`, anything that is not JSON is a 400. A declared length is checked before reading, so on Node
 * the body is read straight from the socket (touching `request.body` would build a web stream first).
 */
export async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const tooLarge = () =>
    new HeedError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, { details: { maxBytes } });
  const declared = request.headers.get('content-length');
  let text: string;
  if (declared !== null && !request.headers.has('transfer-encoding')) {
    if (Number(declared) > maxBytes) throw tooLarge();
    text = await request.text();
  } else {
    text = await readCapped(request, maxBytes, tooLarge);
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HeedError('invalid_request', 'The request body is not valid JSON.', { details: { field: 'body' } });
  }
}

async function readCapped(request: Request, maxBytes: number, tooLarge: () => HeedError): Promise<string> {
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
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}
