import { HeedError } from '../../errors.js';
import { defineRoute, type Route } from '../route.js';
import { demoResponse } from '../schemas.js';

/** The demo's users, so a sign-in page can offer "Try as Ada" and `heed inbox` can sign in by itself. */
export const demoRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/demo',
      operationId: 'demo',
      summary: "The demo's users and their sign-in tokens",
      description:
        '200 only from `heed serve` started without a config and listening on loopback: the users the demo signs in as, each with a ' +
        'demo-only token that anyone who reaches the server may use. Any other server answers 404 `not_found`.',
      tag: 'meta',
      responses: { 200: { description: 'This server runs the demo.', schema: demoResponse } },
      errors: ['not_found', 'unauthorized'],
    },
    ({ c }) => {
      const demo = c.get('demo');
      if (!demo)
        throw new HeedError('not_found', 'This server does not run the demo: sign in with a token from its config.');
      return Response.json({ users: demo.users });
    },
  ),
];
