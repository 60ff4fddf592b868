import { HeedError } from '../../errors.js';
import { defineRoute, type Route } from '../route.js';
import { inboxQuery, inboxResponse } from '../schemas.js';

type Cursor = { createdAt: string; id: string };

export const inboxRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/inbox',
      operationId: 'inbox',
      summary: 'Everything waiting on the caller, across conversations, oldest first',
      description:
        'Pending actions of the conversations the caller owns, a page at a time. An anonymous caller owns none.',
      tag: 'actions',
      query: inboxQuery,
      responses: { 200: { description: 'One page of pending actions.', schema: inboxResponse } },
      errors: ['invalid_request', 'unauthorized'],
    },
    async ({ heed, caller, query }) => {
      const after = query.cursor ? decodeCursor(query.cursor) : undefined;
      const actions = await heed.inbox({ caller, limit: query.limit + 1, after });
      const page = actions.slice(0, query.limit);
      const last = page.at(-1);
      const nextCursor =
        actions.length > query.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : undefined;
      return Response.json({ actions: page, ...(nextCursor ? { nextCursor } : {}) });
    },
  ),
];

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify({ createdAt: cursor.createdAt, id: cursor.id })).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor> | null;
    // The time must be one a store can compare with (a forged one would fail deep in the query instead).
    if (
      value &&
      typeof value.createdAt === 'string' &&
      !Number.isNaN(Date.parse(value.createdAt)) &&
      typeof value.id === 'string'
    ) {
      return { createdAt: value.createdAt, id: value.id };
    }
  } catch {
    // Reported below.
  }
  throw new HeedError('invalid_request', 'The cursor is not one this server handed out.', {
    details: { field: 'query.cursor' },
  });
}
