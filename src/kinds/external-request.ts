import type { z } from 'zod';
import { HeedError } from '../errors.js';
import { backendRequest, kindOf, readRaised, type KindName, type KindRequest } from './index.js';

/*
 * A request made from outside a tool (`POST /api/requests`, MCP): written as each kind's `raise` says
 * (src/kinds/raise.ts), the shape a handler's `pendingActions` uses too, then checked by its kind's
 * `checkRequest` exactly as a tool's `ctx.request` is.
 */

/** A request as a backend sends it: any kind a tool may raise, as its `raise` writes it. */
export const externalRequest = backendRequest;

export type ExternalRequest = z.input<typeof backendRequest>;

/** A request checked and ready to store, with the tool name it is shown under and its own lapse time. */
export interface CheckedExternalRequest {
  request: KindRequest;
  toolName: string;
  expiresInMinutes?: number;
}

/**
 * Checks a request made from outside a tool: its shape (the kinds a tool may raise), then the kind's own
 * check; a 400 `invalid_request` naming what is wrong otherwise. An approval policy belongs to an agent's
 * own approvals: a request names who answers it with `assignees`.
 */
export function checkExternalRequest(input: unknown): CheckedExternalRequest {
  const parsed = backendRequest.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = ['request', ...(issue?.path ?? [])].join('.');
    throw new HeedError('invalid_request', `${where}: ${issue?.message ?? 'not a request Heed can ask'}.`, {
      details: { field: where },
    });
  }
  const { raised, toolName, expiresInMinutes, policy } = readRaised(parsed.data);
  if (policy !== undefined)
    throw new HeedError(
      'invalid_request',
      "An approval policy is for an agent's own approvals; name who may answer a request with assignees.",
      { details: { field: 'request.approval' } },
    );
  const request = kindOf(parsed.data.kind as KindName).checkRequest(raised as never) as KindRequest;
  return {
    request,
    toolName: toolName ?? 'request',
    ...(expiresInMinutes !== undefined ? { expiresInMinutes } : {}),
  };
}
