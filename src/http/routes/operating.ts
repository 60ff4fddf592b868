import { z } from 'zod';
import { mustBeAdmin } from '../../engine/access.js';
import { defineRoute, type Route } from '../route.js';
import { personValues } from '../person-values.js';

/*
 * What an operator needs to run Heed for years (docs/operating.md): erasing a person, reading the audit log.
 * Admins only (`auth.admins`).
 */

const auditEntry = z.object({
  seq: z.number().int(),
  at: z.string(),
  actor: z.string().describe('The user id, `erased:<8 hex>` once erased, `system`, `system:timeout` or `anonymous`.'),
  actorKey: z.string().describe('The pseudonym the chain holds: `p_` + 16 hex, or the system name.'),
  onBehalfOf: z
    .string()
    .optional()
    .describe('Whom the actor answered for (a delegate), or the delegate of a delegation.'),
  onBehalfOfKey: z.string().optional(),
  verb: z
    .string()
    .describe(
      '`answer`, `vote`, `lapse`, `cancel`, `extend`, `delegation.set`, `delegation.clear`, `token.create`, `token.revoke`, `sign-in`, `erase`.',
    ),
  conversationId: z.string().optional(),
  actionId: z.string().optional(),
  toolName: z.string().optional(),
  argsSha256: z.string().optional(),
  decision: z.string().optional(),
  surface: z.string(),
  prevHash: z.string(),
  hash: z
    .string()
    .describe(
      'Lowercase hex SHA-256 of prevHash + "\\n" + the canonical JSON of the entry without hash, actor and onBehalfOf.',
    ),
});

const auditPage = z.object({
  entries: z.array(auditEntry),
  anchor: z
    .object({ seq: z.number().int(), hash: z.string() })
    .describe('Where the kept chain starts: the last pruned entry (seq 0 and 64 zeros when none was).'),
});

const erased = z.object({
  conversations: z.number().int().describe('Their own conversations deleted.'),
  actions: z.number().int().describe('The actions of those conversations.'),
  replaced: z.number().int().describe("Records of others' conversations where their id became `erased:<8 hex>`."),
});

export const operatingRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/audit',
      scope: 'admin',
      operationId: 'listAudit',
      summary: 'The audit log, oldest first',
      description:
        'Admins only. One entry per decision (docs/operating.md#the-audit-log), chained by hash. With ' +
        '`Accept: application/x-ndjson`, one entry a line and no envelope; page on with `after` = the last `seq`.',
      tag: 'notifications',
      query: z.object({
        after: z.coerce.number().int().min(0).default(0),
        limit: z.coerce.number().int().min(1).max(5000).default(500),
      }),
      responses: { 200: { description: 'One page of entries.', schema: auditPage } },
      errors: ['invalid_request', 'unauthorized', 'forbidden'],
    },
    async ({ c, host, caller, query }) => {
      mustBeAdmin(caller, 'read the audit log');
      const entries = await host.auditLog.listAudit({ after: query.after, limit: query.limit });
      if ((c.req.header('accept') ?? '').includes('application/x-ndjson'))
        return new Response(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''), {
          headers: { 'content-type': 'application/x-ndjson' },
        });
      return Response.json({ entries, anchor: await host.auditLog.auditAnchor() });
    },
  ),
  defineRoute(
    {
      method: 'delete',
      path: '/api/people/:userId',
      scope: 'admin',
      operationId: 'erasePerson',
      summary: 'Erase a person',
      description:
        'Admins only. Deletes their own conversations, sessions, personal tokens, delegations and remembered tools, ' +
        "and replaces their id in others' records by `erased:<8 hex>` (stable for that id). The audit log keeps its " +
        'chain; its entries name them by the pseudonym. Nothing of their text stays in the database files.',
      tag: 'notifications',
      params: z.strictObject({ userId: z.string().min(1).max(200) }),
      responses: { 200: { description: 'What was erased.', schema: erased } },
      errors: ['unauthorized', 'forbidden'],
    },
    async ({ host, caller, params }) => {
      mustBeAdmin(caller, 'erase a person');
      const counts = await host.erase({
        userId: params.userId,
        by: caller.userId,
        surface: 'api',
        ...personValues(params.userId),
      });
      // Their streams and sessions end: followers in this process ask again now.
      host.accessChanged();
      return Response.json(counts);
    },
  ),
];
