import { Hono } from 'hono';
import type { AuthConfig } from '../config.js';
import { HeedError } from '../errors.js';
import type { Heed } from '../heed.js';
import { aiSdkChatRoutes } from './ai-sdk-chat.js';
import { authMiddleware } from './auth.js';
import { mountConsole } from './console.js';
import { errorResponse } from './errors.js';
import { mountRoutes, type AppEnv, type Route } from './route.js';
import { actionRoutes } from './routes/actions.js';
import { agentRoutes } from './routes/agents.js';
import { conversationRoutes } from './routes/conversations.js';
import { eventRoutes } from './routes/events.js';
import { inboxRoutes } from './routes/inbox.js';
import { messageRoutes } from './routes/messages.js';
import { metaRoutes } from './routes/meta.js';
import { rememberedToolRoutes } from './routes/remembered-tools.js';

export interface AppOptions {
  auth?: AuthConfig;
  /** Largest request body accepted, in bytes; larger ones get 413 `payload_too_large`. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Aborting it ends every open event stream (the server is shutting down). */
  signal?: AbortSignal;
  /** A built web console (`dist/ui`) to serve at `/`, with page paths falling back to its index.html. */
  consoleDir?: string;
}

export type HeedApp = Hono<AppEnv>;

/** The routes of DESIGN §9, in the order they are documented. */
export function apiRoutes(): Route[] {
  const routes: Route[] = [
    ...agentRoutes,
    ...conversationRoutes,
    ...messageRoutes,
    ...actionRoutes,
    ...eventRoutes,
    ...rememberedToolRoutes,
    ...inboxRoutes,
    ...aiSdkChatRoutes,
  ];
  routes.push(...metaRoutes(() => routes));
  return routes;
}

/** The HTTP API of a Heed as a Hono app: `app.fetch(request)` answers any `Request`. */
export function createApp(heed: Heed, options: AppOptions = {}): HeedApp {
  const app = new Hono<AppEnv>();
  const maxSize = options.maxBodyBytes ?? 1024 * 1024;
  app.onError((error) => errorResponse(error));
  app.notFound((c) => errorResponse(new HeedError('not_found', `There is no route ${c.req.method} ${c.req.path}.`)));
  const auth = authMiddleware(options.auth);
  // The document, its page and liveness are public; everything else under /api knows its caller.
  app.use('/api/*', async (c, next) => {
    if (c.req.path === '/api/openapi.json' || c.req.path === '/api/docs') {
      c.set('caller', { userId: null });
      return next();
    }
    return auth(c, next);
  });
  mountRoutes(app, heed, apiRoutes(), { signal: options.signal ?? new AbortController().signal, maxBodyBytes: maxSize });
  if (options.consoleDir) mountConsole(app, options.consoleDir);
  return app;
}

/** `createApp(...).fetch` as a plain function, for runtimes that take one. */
export function createFetch(heed: Heed, options: AppOptions = {}): (request: Request) => Promise<Response> {
  const app = createApp(heed, options);
  return async (request) => app.fetch(request);
}
