import { HeedError } from '../../errors.js';
import type { Follow, FollowFlow } from '../../engine/follow.js';
import { defineRoute, type Route } from '../route.js';
import { conversationIdParams, eventsQuery, eventsResponse, streamQuery } from '../schemas.js';
import { sseResponse, type SseWriter } from '../sse.js';
import { openStream } from '../stream-limits.js';
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
      responses: {
        200: {
          description:
            'The stream; it stays open until the client leaves, or until the caller may no longer read the ' +
            'conversation (a delegation they read it through ended): then a last `error` event (`not_found`) and it closes.',
          events: 'Every event of the log, as in `GET …/events`.',
        },
      },
      errors: ['invalid_request', 'unauthorized', 'not_found', 'rate_limited'],
    },
    async ({ c, heed, caller, params, query, signal }) => {
      const after = lastEventId(c.req.header('last-event-id')) ?? query.after ?? 0;
      const opened = openStream(c, caller);
      if (opened instanceof Response) return opened;
      // The follower reads the stored backlog a page at a time, only as fast as the client takes it, and
      // nothing before the stream starts (a HEAD never starts it).
      let writer: SseWriter | undefined;
      let start!: () => void;
      const started = new Promise<void>((resolve) => (start = resolve));
      const flow: FollowFlow = { hasRoom: () => writer?.hasRoom() ?? false, ready: () => writer?.ready() ?? started };
      // Set when the caller may no longer read the conversation (a delegation ended): the stream ends with it.
      let refuse!: (error: HeedError) => void;
      const refused = new Promise<HeedError>((resolve) => (refuse = resolve));
      let follow: Follow;
      try {
        // Follow before answering, so an unknown conversation is a plain 404 rather than an error event.
        follow = await heed
          .conversation(params.id)
          .follow((event) => sendEvent(writer!, event), { caller, after, flow, onRefused: refuse });
      } catch (thrown) {
        opened.onEnd?.();
        throw thrown;
      }
      return sseResponse(
        async (stream) => {
          writer = stream;
          start();
          const error = await Promise.race([
            refused,
            new Promise<undefined>((resolve) => {
              if (stream.signal.aborted) return resolve(undefined);
              stream.signal.addEventListener('abort', () => resolve(undefined), { once: true });
            }),
          ]);
          // Sent as the stream's last event (`event: error`, the usual error body), then the stream closes.
          if (error) throw error;
        },
        {
          ...opened,
          signal,
          onEnd: () => {
            follow.close();
            // A follower still waiting for the stream to start must not wait for ever.
            start();
            opened.onEnd?.();
          },
        },
      );
    },
  ),
];

function lastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const value = Number(header.trim());
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new HeedError('invalid_request', 'Last-Event-ID must be the number of an event.', {
      details: { field: 'header.last-event-id' },
    });
  }
  return value;
}
