import { z } from 'zod';
import { errorStatus, type HeedErrorCode } from '../errors.js';

/*
 * The error body, on the server (HeedError.toJSON, src/http/errors.ts) and in the client (HeedClientError):
 * one schema, so both read and write the same shape (docs/http.md#errors).
 */

/** Every code the server answers with (src/errors.ts lists them with their HTTP status). */
export const errorCodes = Object.keys(errorStatus) as HeedErrorCode[];

/**
 * Details an error may carry; which ones depends on its code (docs/http.md#errors). Others may come too,
 * so the object stays open.
 */
export const errorDetails = z.looseObject({
  field: z.string().optional().describe('The field refused, e.g. `body.content` or `answers.scope`.'),
  issues: z.array(z.unknown()).optional().describe('The first problems found, each with its path and message.'),
  takes: z.array(z.string()).optional().describe('The keys an answer of this kind takes.'),
  pendingActionIds: z.array(z.string()).optional().describe('The actions that wait (409 `action_pending`).'),
  limit: z.string().optional().describe('The limit reached, e.g. `streamsPerCaller`.'),
  max: z.number().optional(),
  retryAfterSeconds: z.number().optional().describe('When to try again (429 and 503).'),
  truncated: z
    .string()
    .optional()
    .describe('Said when long texts or lists of these details were cut to keep the answer under 16 KiB.'),
});

/**
 * Every error of the API: `code` is what clients match on. On the wire it is a plain string, not an enum, so
 * a client keeps reading the errors of a newer server that added one; typed as the codes this version knows.
 */
export const errorBody = z.strictObject({
  error: z.strictObject({
    code: z
      .string()
      .describe(
        `Stable code clients match on: ${errorCodes.map((code) => `\`${code}\``).join(', ')}. A 503 \`store_unavailable\` (the database is out of reach or full) carries \`Retry-After\` and \`details.retryAfterSeconds\`.`,
      ) as z.ZodType<HeedErrorCode, string>,
    message: z.string().describe('A sentence a person can read.'),
    details: errorDetails.optional(),
  }),
});

/** The wire form of every error: `{ error: { code, message, details? } }`. */
export type ErrorBody = z.infer<typeof errorBody>;
export type ErrorDetails = z.infer<typeof errorDetails>;
