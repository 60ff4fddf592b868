import { z } from 'zod';
import { HeedError } from '../../errors.js';
import { mayFindForBatch } from '../../engine/access.js';
import { json } from '../../protocol/values.js';
import { actionView } from '../../views.js';
import { errorResponse } from '../errors.js';
import { defineRoute, type Route } from '../route.js';

/** The most answers one batch may carry: a page of the inbox, not a bulk import. */
export const MAX_DECISIONS = 100;

const decisionsBody = z.strictObject({
  decisions: z
    .array(
      z.strictObject({
        actionId: z.string().min(1).max(200),
        resolution: json.describe("The answer, as `POST …/actions/{actionId}` takes it (`type` is the action's kind)."),
      }),
    )
    .min(1)
    .max(MAX_DECISIONS)
    .describe(`The answers, settled one after the other in this order; at most ${MAX_DECISIONS}.`),
});

const decisionResult = z.object({
  actionId: z.string(),
  status: z
    .number()
    .int()
    .describe('What the single answer would have got: 200, 409 with the stored answer, 400, 404, …'),
  body: z
    .unknown()
    .describe(
      '200: the action as settled (nothing more of its conversation); otherwise the error the single answer would have got.',
    ),
});
const decisionsResponse = z.object({
  results: z.array(decisionResult).describe('One per decision, in the order sent.'),
});

export const decisionRoutes: Route[] = [
  defineRoute(
    {
      method: 'post',
      path: '/api/inbox/decisions',
      scope: 'answer',
      operationId: 'decideMany',
      summary: 'Answer several actions at once',
      description:
        'Each decision is settled as `POST /api/conversations/{id}/actions/{actionId}` would settle it, one after the other in the ' +
        'order sent, and gets the status that answer would have got (with its error body): one refused does not stop the others, and ' +
        'nothing is all-or-nothing. `remember` is never applied in a batch: a remembered approval is given one at a time. ' +
        'A batch finds only actions the caller answers from an inbox: of a conversation they own, or naming them as an ' +
        'approver (an ownerless conversation, open to whoever holds its id, is not answered by action id alone). Any other ' +
        'is 404, as one that does not exist. A settled answer gets the action, not the continued turn.',
      tag: 'actions',
      body: decisionsBody,
      responses: { 200: { description: 'How each answer went.', schema: decisionsResponse } },
      errors: ['invalid_request', 'unauthorized'],
    },
    async ({ heed, host, caller, body }) => {
      const results: z.infer<typeof decisionResult>[] = [];
      for (const { actionId, resolution } of body.decisions) {
        const action = await host.store.findAction(actionId);
        const conversation = action && (await host.store.getConversation(action.conversationId));
        try {
          if (!action || !conversation || !mayFindForBatch(caller, conversation, action)) throw missing(actionId);
          await heed.conversation(action.conversationId).resolve(actionId, withoutRemember(resolution), { caller });
          const settled = await host.store.getAction(action.conversationId, actionId);
          const view = settled ? actionView(host, settled, conversation.agent) : undefined;
          results.push({ actionId, status: 200, body: view });
        } catch (thrown) {
          // A conversation the caller may not see reads as a missing action: its id is not told.
          const response = errorResponse(hidden(thrown) ? missing(actionId) : thrown);
          results.push({ actionId, status: response.status, body: await response.json() });
        }
      }
      return Response.json({ results });
    },
  ),
];

function hidden(thrown: unknown): boolean {
  return HeedError.isInstance(thrown) && thrown.code === 'not_found' && thrown.details?.conversationId !== undefined;
}

function missing(actionId: string): HeedError {
  return new HeedError('not_found', `There is no action ${actionId} you may answer.`, { details: { actionId } });
}

/** The answer without `remember`: remembering an approval is a choice made for one call, not for a batch. */
function withoutRemember(resolution: unknown): unknown {
  if (typeof resolution !== 'object' || resolution === null || Array.isArray(resolution)) return resolution;
  if (!Object.hasOwn(resolution, 'remember')) return resolution;
  const { remember: _ignored, ...rest } = resolution as Record<string, unknown>;
  return rest;
}
