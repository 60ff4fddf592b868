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

/** Reads a JSON body; an empty body reads as `{}`, anything that is not JSON is a 400. */
export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HeedError('invalid_request', 'The request body is not valid JSON.', { details: { field: 'body' } });
  }
}
