import { errorFields } from '../../logger.js';
import { createHash } from 'node:crypto';
import type { ActionView } from '../../views.js';
import { defineRoute, type Route } from '../route.js';
import { sseResponse } from '../sse.js';
import { openStream } from '../stream-limits.js';

/** At most this many pending actions are watched (the oldest first, as `GET /api/inbox` pages them). */
const WATCHED = 200;
/** Changes arriving together are looked at once, this long after the first. */
const SETTLE_MS = 50;
/** A look at the store this often even when nothing was announced (a safety net). */
const RESCAN_MS = 30_000;

/** The id of a state: a short hash of the pending action ids the client holds once it applied the event. */
function stateId(ids: Iterable<string>): string {
  return createHash('sha256')
    .update([...ids].sort().join('\n'))
    .digest('base64url')
    .slice(0, 22);
}

export const inboxStreamRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/inbox/stream',
      operationId: 'followInbox',
      summary: 'Follow the inbox live',
      description:
        'Server-Sent Events about what waits on the caller (as `GET /api/inbox`: actions of conversations they own; nothing ' +
        'for an anonymous caller). It opens with `inbox.added` for every pending action and then `inbox.synced` ' +
        '(`{ count }`): the client drops anything it held that was not re-added. Then `inbox.added` (the action) and ' +
        '`inbox.removed` (`{ id, conversationId }`) as they happen. Each event id names the state after it: a client ' +
        'that reconnects with `Last-Event-ID` and missed nothing gets no snapshot again, only what changes next. At most ' +
        `${WATCHED} actions are followed, oldest first.`,
      tag: 'actions',
      responses: {
        200: {
          description: 'The stream; it stays open until the client leaves.',
          events: '`inbox.added`, `inbox.removed`, `inbox.synced`.',
        },
      },
      errors: ['unauthorized', 'rate_limited'],
    },
    async ({ c, heed, host, caller, signal }) => {
      const opened = openStream(c, caller);
      if (opened instanceof Response) return opened;
      const resumeFrom = c.req.header('last-event-id')?.trim();
      return sseResponse(
        async (stream) => {
          const known = new Map<string, ActionView>();
          let first = true;
          let timer: NodeJS.Timeout | undefined;
          let scanning: Promise<void> | undefined;
          let again = false;

          const scan = async () => {
            const pending = await heed.inbox({ caller, limit: WATCHED });
            const now = new Map(pending.map((action) => [action.id, action]));
            if (first) {
              first = false;
              // A client that comes back holding exactly this state needs nothing sent again.
              if (resumeFrom && resumeFrom === stateId(now.keys())) {
                for (const [id, action] of now) known.set(id, action);
                return;
              }
              for (const [id, action] of now) {
                known.set(id, action);
                stream.send({ event: 'inbox.added', id: stateId(known.keys()), data: JSON.stringify(action) });
              }
              stream.send({
                event: 'inbox.synced',
                id: stateId(known.keys()),
                data: JSON.stringify({ count: known.size }),
              });
              return;
            }
            for (const [id, action] of [...known]) {
              if (now.has(id)) continue;
              known.delete(id);
              stream.send({
                event: 'inbox.removed',
                id: stateId(known.keys()),
                data: JSON.stringify({ id, conversationId: action.conversationId }),
              });
            }
            for (const [id, action] of now) {
              if (known.has(id)) continue;
              known.set(id, action);
              stream.send({ event: 'inbox.added', id: stateId(known.keys()), data: JSON.stringify(action) });
            }
          };
          const look = () => {
            if (stream.signal.aborted) return;
            if (scanning) {
              again = true;
              return;
            }
            scanning = scan()
              // The stream stays open and the next change scans again; the log says why this one failed.
              .catch((error: unknown) =>
                host.logger.warn(errorFields(error), 'Heed: the inbox stream could not read the pending actions'),
              )
              .finally(() => {
                scanning = undefined;
                if (again) {
                  again = false;
                  look();
                }
              });
          };
          const soon = () => (timer ??= setTimeout(() => ((timer = undefined), look()), SETTLE_MS));
          const stop = host.onAnyChange(soon);
          const rescan = setInterval(look, RESCAN_MS);
          look();
          await new Promise<void>((resolve) => {
            if (stream.signal.aborted) return resolve();
            stream.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          stop();
          clearInterval(rescan);
          if (timer) clearTimeout(timer);
          await scanning;
        },
        { ...opened, signal },
      );
    },
  ),
];
