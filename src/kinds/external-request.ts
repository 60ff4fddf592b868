import { z } from 'zod';
import { HeedError } from '../errors.js';
import { MAX_TITLE_CHARS } from '../protocol/conversation.js';
import { jsonValue } from '../protocol/values.js';
import { kindOf, type KindName, type KindRequest, type RaisedRequest } from './index.js';

/*
 * A request made from outside a tool (`POST /api/requests`): the shape a handler agent's `pendingActions`
 * uses, checked on the wire here and then by its kind's `checkRequest`, exactly as a tool's `ctx.request` is.
 */

const minutes = z.number().positive().optional().describe('Minutes until it lapses.');

// A title is a headline in inboxes, mail subjects and chat cards: a conversation's title is cut at the same length.
const titleTooLong = `a title is at most ${MAX_TITLE_CHARS} characters; put the rest in the summary or message`;

/** A request as a backend sends it: any kind's request as a tool raises it with `ctx.request`. */
export const externalRequest = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('approval'),
    title: z.string().min(1).max(MAX_TITLE_CHARS, titleTooLong),
    summary: z.string().optional(),
    toolName: z.string().min(1).max(200).optional().describe('Shown with the request; default `request`.'),
    args: jsonValue.optional().describe('What is to be approved; a person may send back edited ones.'),
    argsSchema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('JSON Schema edited arguments must satisfy; without it edits are refused.'),
    expiresInMinutes: minutes,
  }),
  z.strictObject({
    kind: z.literal('question'),
    preamble: z.string().optional(),
    questions: z.array(z.record(z.string(), z.unknown())).min(1).describe('As `ctx.ask` takes them.'),
    expiresInMinutes: minutes,
  }),
  z.strictObject({
    kind: z.literal('client_tool'),
    toolName: z.string(),
    args: jsonValue,
    timeoutSeconds: z.number().positive().optional(),
  }),
  z.strictObject({
    kind: z.literal('url'),
    url: z.string(),
    title: z.string().max(MAX_TITLE_CHARS, titleTooLong).optional(),
    message: z.string().optional(),
    expiresInMinutes: minutes,
  }),
]);

export type ExternalRequest = z.output<typeof externalRequest>;

/** A request checked and ready to store, with the tool name it is shown under and its own lapse time. */
export interface CheckedExternalRequest {
  request: KindRequest;
  toolName: string;
  expiresInMinutes?: number;
}

/**
 * Checks a request made from outside a tool: its kind must be one a tool may raise, and the kind's own
 * check must pass (a 400 `invalid_request` naming what is wrong otherwise).
 */
export function checkExternalRequest(input: ExternalRequest): CheckedExternalRequest {
  const kind = kindOf(input.kind as KindName);
  if (!kind?.raisedByTools) {
    throw new HeedError(
      'invalid_request',
      `A "${input.kind}" request runs in a conversation's page, so it cannot be asked for from outside one.`,
      { details: { field: 'request.kind', kind: input.kind } },
    );
  }
  const { expiresInMinutes, ...rest } = input as ExternalRequest & { expiresInMinutes?: number };
  let raised: RaisedRequest;
  let toolName = 'request';
  if (rest.kind === 'approval') {
    raised = {
      kind: 'approval',
      title: rest.title,
      summary: rest.summary ?? '',
      args: rest.args ?? null,
      canRemember: false,
      ...(rest.argsSchema !== undefined ? { argsSchema: rest.argsSchema } : {}),
    };
    toolName = rest.toolName ?? toolName;
  } else {
    raised = rest as RaisedRequest;
  }
  const request = kind.checkRequest(raised as never) as KindRequest;
  return { request, toolName, ...(expiresInMinutes !== undefined ? { expiresInMinutes } : {}) };
}
