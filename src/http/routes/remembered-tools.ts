import { defineRoute, type Route } from '../route.js';
import { conversationIdParams, rememberedToolsResponse, toolParams } from '../schemas.js';

export const rememberedToolRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/conversations/:id/remembered-tools',
      operationId: 'listRememberedTools',
      summary: 'Tools approved with `remember: true` in this conversation',
      tag: 'actions',
      params: conversationIdParams,
      responses: { 200: { description: 'The remembered tools.', schema: rememberedToolsResponse } },
      errors: ['unauthorized', 'not_found'],
    },
    async ({ heed, caller, params }) =>
      Response.json({ tools: await heed.conversation(params.id).rememberedTools({ caller }) }),
  ),
  defineRoute(
    {
      method: 'delete',
      path: '/api/conversations/:id/remembered-tools/:tool',
      operationId: 'forgetTool',
      summary: 'Ask again before the next call of this tool',
      tag: 'actions',
      params: toolParams,
      responses: { 204: { description: 'Forgotten.' } },
      errors: ['unauthorized', 'not_found'],
    },
    async ({ heed, caller, params }) => {
      await heed.conversation(params.id).forgetTool(params.tool, { caller });
      return new Response(null, { status: 204 });
    },
  ),
];
