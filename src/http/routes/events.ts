import { HeedError } from '../../errors.js';
import type { EventRecord } from '../../types.js';
import { defineRoute, type Route } from '../route.js';
import { conversationIdParams, eventsQuery, eventsResponse, streamQuery } from '../schemas.js';
import { sseResponse } from '../sse.js';
import { sendEvent } from '../turn-stream.js';

export const eventRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/conversations/:id/events',
      operationId: 'listEvents',
      summary: 'The event log, a page at a time',
      description: 'Events numbered after `after`, oldest first. For the next page pass the last `seq` as `after`.',
      tag: 'events',
      params: conversationIdParams,
      query: eventsQuery,
      responses: { 200: { description: 'One page of events.', schema: eventsResponse } },
      errors: ['invalid_request', 'unauthorized', 'not_found'],
    },
    async ({ heed, caller, params, query }) => {
      const events = await heed.conversation(params.id).events({ caller, after: query.after, limit: query.limit + 1 });
      const hasMore = events.length > query.limit;
      return Response.json({ events: hasMore ? events.slice(0, query.limit) : events, hasMore });
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/conversations/:id/events/stream',
      operationId: 'followEvents',
      summary: 'Follow the event log live',
      description:
        'Server-Sent Events: the stored events after `Last-Event-ID` (or `?after=`, default 0) first, then live ones, ' +
        'each exactly once and in order. SSE event name = event type, id = event number, data = the event as JSON.',
      tag: 'events',
      params: conversationIdParams,
      query: streamQuery,
      responses: { 200: { description: 'The stream; it stays open until the client leaves.', events: 'Every event of the log, as in `GET …/events`.' } },
      errors: ['invalid_request', 'unauthorized', 'not_found'],
    },
    async ({ c, heed, caller, params, query, signal }) => {
      const after = lastEventId(c.req.header('last-event-id')) ?? query.after ?? 0;
      // Follow before answering, so an unknown conversation is a plain 404 rather than an error event.
      const backlog: EventRecord[] = [];
      let deliver = (event: EventRecord): void => {
        backlog.push(event);
      };
      const follow = await heed.conversation(params.id).follow((event) => deliver(event), { caller, after });
      return sseResponse(
        async (writer) => {
          deliver = (event) => sendEvent(writer, event);
          for (const event of backlog.splice(0)) deliver(event);
          try {
            await new Promise<void>((resolve) => {
              if (writer.signal.aborted) return resolve();
              writer.signal.addEventListener('abort', () => resolve(), { once: true });
            });
          } finally {
            follow.close();
          }
        },
        { signal },
      );
    },
  ),
];

function lastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const value = Number(header.trim());
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new HeedError('invalid_request', 'Last-Event-ID must be the number of an event.', { details: { field: 'header.last-event-id' } });
  }
  return value;
}
