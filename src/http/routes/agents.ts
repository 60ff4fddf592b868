import { isOperator, operatorRule } from '../operators.js';
import { defineRoute, type Route } from '../route.js';
import { agentInfo, agentParams, agentsResponse, meResponse } from '../schemas.js';

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
  defineRoute(
    {
      method: 'get',
      path: '/api/me',
      operationId: 'me',
      summary: 'Who the caller is',
      description:
        "The user id the caller's token (or `resolveContext`) stands for, so a front end can tell which requests are its user's to " +
        'answer (an approval its user asked for under four eyes is not). `userId: null` for an anonymous caller.',
      tag: 'agents',
      responses: { 200: { description: 'The caller.', schema: meResponse } },
      errors: ['unauthorized'],
    },
    ({ c, host, caller }) => {
      const operator = isOperator(caller, operatorRule(c, host));
      return Response.json({
        userId: caller.userId,
        ...(caller.groups?.length ? { groups: caller.groups } : {}),
        ...(operator ? { operator: true } : {}),
      });
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/agents/:name',
      operationId: 'getAgent',
      summary: 'One agent, with what it can ask',
      description:
        'The same entry as in `GET /api/agents`, nothing more: a caller who may list the agents may read each of them.',
      tag: 'agents',
      params: agentParams,
      responses: { 200: { description: 'The agent.', schema: agentInfo } },
      errors: ['unauthorized', 'not_found'],
    },
    ({ heed, params }) => Response.json(heed.agent(params.name)),
  ),
];
