import { z } from 'zod';
import type { Caller } from '../../caller.js';
import { HeedError } from '../../errors.js';
import { delegationResponse } from '../../protocol/responses.js';
import { defineRoute, type Route, type Served } from '../route.js';

const delegationBody = z.strictObject({
  to: z.string().describe("Another person's user id."),
  until: z.string().optional().describe('An ISO time in the future; absent: until cleared.'),
});

const description =
  'While a delegation holds, what waits on the caller (approvals naming them, requests assigned to them, their ' +
  "conversations' pending actions) also waits on `to`: it is in their inbox and they may answer it, recorded as " +
  '`resolvedBy` them and `answeredFor` the caller (docs/approvals.md, Delegation). It ends at `until`. Only for a ' +
  'signed-in caller.';

/** A signed-in caller's id; 403 for an anonymous one, who has nothing to hand over. */
function signedIn(caller: Caller): string {
  if (caller.userId === null) throw new HeedError('forbidden', 'Sign in to hand your requests over to someone.');
  return caller.userId;
}

async function current({ host }: Served, userId: string): Promise<Response> {
  return Response.json(await host.delegation.get(userId));
}

export const delegationRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/me/delegation',
      operationId: 'getDelegation',
      summary: "The caller's delegation, and those they hold for others",
      description,
      tag: 'agents',
      responses: { 200: { description: 'The delegations.', schema: delegationResponse } },
      errors: ['unauthorized', 'forbidden'],
    },
    (input) => current(input, signedIn(input.caller)),
  ),
  defineRoute(
    {
      method: 'put',
      path: '/api/me/delegation',
      scope: 'answer',
      operationId: 'setDelegation',
      summary: "Hand the caller's requests over to someone until a time",
      description: `${description} Replaces the caller's delegation. 400 \`invalid_request\` (\`details.reason\`: \`self\`, \`cycle\`, \`past\`, \`invalid\`) for a delegation to oneself, one that would lead back to the caller, or an \`until\` not in the future; nothing changes.`,
      tag: 'agents',
      body: delegationBody,
      responses: { 200: { description: 'The delegations as they now are.', schema: delegationResponse } },
      errors: ['invalid_request', 'unauthorized', 'forbidden'],
    },
    async (input) => {
      const userId = signedIn(input.caller);
      await input.host.delegation.set(userId, input.body);
      return current(input, userId);
    },
  ),
  defineRoute(
    {
      method: 'delete',
      path: '/api/me/delegation',
      scope: 'answer',
      operationId: 'clearDelegation',
      summary: "End the caller's delegation now",
      description: 'What was handed over waits on the caller alone again. Nothing to do when there is none.',
      tag: 'agents',
      responses: { 200: { description: 'The delegations as they now are.', schema: delegationResponse } },
      errors: ['unauthorized', 'forbidden'],
    },
    async (input) => {
      const userId = signedIn(input.caller);
      await input.host.delegation.clear(userId);
      return current(input, userId);
    },
  ),
];
