import { defineRoute, type Route } from '../route.js';
import { agentsResponse } from '../schemas.js';

export const agentRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/agents',
      operationId: 'listAgents',
      summary: 'The agents this server runs, with what each can ask',
      tag: 'agents',
      responses: { 200: { description: 'The agents.', schema: agentsResponse } },
      errors: ['unauthorized'],
    },
    ({ heed }) => Response.json({ agents: heed.agents() }),
  ),
];
