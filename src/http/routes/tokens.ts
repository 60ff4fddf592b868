import { z } from 'zod';
import type { Caller } from '../../caller.js';
import { HeedError } from '../../errors.js';
import { personalTokenCreated, personalTokenList } from '../../protocol/responses.js';
import { isOperator, operatorRule } from '../operators.js';
import type { Context } from 'hono';
import { defineRoute, type AppEnv, type Route } from '../route.js';
import { SCOPES, scopeRefusal, type PersonalTokens } from '../sign-in/tokens.js';

const createBody = z.strictObject({
  name: z.string().trim().min(1, 'name the token (where it is used)').max(80, 'a name is at most 80 characters'),
  scopes: z
    .array(z.enum(SCOPES, { error: `expected scopes among ${SCOPES.join(', ')}` }))
    .min(1, 'give the token at least one scope'),
  expiresInDays: z.number().int().min(1).max(366).optional().describe('Absent: the token does not lapse.'),
});

const description =
  'Personal tokens: bearer tokens a person makes for scripts and the terminal, each with scopes (`read`: GET ' +
  'routes and streams; `answer`: settle, vote, extend, decisions, delegation; `converse`: start conversations, send ' +
  'messages, requests; `admin`: operator routes, only for admins). Stored as a SHA-256 hash; revoked at once. ' +
  'Managed only by a signed-in caller that is not itself a personal token (403 `scope`).';

/** The person managing their tokens: identified, and not through a personal token. */
function person(caller: Caller): { userId: string; groups: string[] } {
  if (caller.userId === null) throw new HeedError('forbidden', 'Sign in to make or see personal tokens.');
  if (caller.scopes) throw scopeRefusal('session');
  return { userId: caller.userId, groups: [...(caller.groups ?? [])] };
}

function tokensOf({ c }: { c: Context<AppEnv> }): PersonalTokens {
  return c.get('personalTokens')!;
}

export const tokenRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/me/tokens',
      operationId: 'listTokens',
      summary: "The caller's personal tokens (never their secrets)",
      description,
      tag: 'agents',
      responses: { 200: { description: 'Newest first.', schema: personalTokenList } },
      errors: ['unauthorized', 'forbidden', 'scope'],
    },
    async (input) => Response.json({ tokens: await tokensOf(input).list(person(input.caller).userId) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/me/tokens',
      operationId: 'createToken',
      summary: 'Make a personal token; its secret is shown this once',
      description: `${description} The \`admin\` scope only for an admin (403 \`forbidden\`).`,
      tag: 'agents',
      body: createBody,
      responses: { 201: { description: 'The token, with `token`: keep it now.', schema: personalTokenCreated } },
      errors: ['invalid_request', 'unauthorized', 'forbidden', 'scope'],
    },
    async (input) => {
      const who = person(input.caller);
      const body = input.body;
      if (body.scopes.includes('admin') && !isOperator(input.caller, operatorRule(input.c, input.host)))
        throw new HeedError('forbidden', 'Only the admins named in auth.admins may make a token with the admin scope.');
      return Response.json(await tokensOf(input).create(who, body), { status: 201 });
    },
  ),
  defineRoute(
    {
      method: 'delete',
      path: '/api/me/tokens/:id',
      // Any token may end itself, whatever its scopes.
      scope: 'read',
      operationId: 'revokeToken',
      summary: 'Revoke a personal token now',
      description:
        'It stops at once on every instance, and streams it opened end. A personal token may revoke itself (and no other).',
      tag: 'agents',
      params: z.strictObject({ id: z.string() }),
      responses: { 204: { description: 'Revoked.' } },
      errors: ['unauthorized', 'forbidden', 'scope', 'not_found'],
    },
    async (input) => {
      // A personal token may revoke itself (`heed inbox --logout`), and no other.
      const self = input.caller.scopes !== undefined && input.caller.data?.tokenId === input.params.id;
      const who = self ? { userId: input.caller.userId! } : person(input.caller);
      if (!(await tokensOf(input).revoke(who.userId, input.params.id)))
        throw new HeedError('not_found', 'You have no personal token with that id.', {
          details: { tokenId: input.params.id },
        });
      return new Response(null, { status: 204 });
    },
  ),
];
