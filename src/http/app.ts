import { Hono } from 'hono';
import type { AllowedHosts, AuthConfig, CorsConfig, McpServeOptions } from '../config.js';
import { checkAppOptions } from '../config-schema.js';
import { metricsHandler, type MetricsConfig } from './metrics.js';
import { queueRoutes } from './routes/queue.js';
import { decisionRoutes } from './routes/decisions.js';
import { HeedError } from '../errors.js';
import type { Heed } from '../heed.js';
import type { Caller } from '../caller.js';
import { names } from '../groups.js';
import { aiSdkChatRoutes } from './ai-sdk-chat.js';
import { agUiRoutes } from './ag-ui/route.js';
import { a2aRoutes } from './a2a/route.js';
import { pushSender } from './a2a/push.js';
import { callerMiddleware, callerResolver } from './auth.js';
import { peerAddress } from './trusted-header.js';
import { mountSignIn, signInOf } from './sign-in/sign-in.js';
import { PersonalTokens } from './sign-in/tokens.js';
import { mountDevice } from './sign-in/device.js';
import { mountMcpServer } from './mcp-server/mount.js';
import { mountConsole } from './console.js';
import { corsMiddleware } from './cors.js';
import { errorResponse } from './errors.js';
import { hostCheck } from './host-check.js';
import { RateLimiter } from './rate-limit.js';
import { mountRoutes, type AppEnv, type Route } from './route.js';
import { actionRoutes } from './routes/actions.js';
import { agentRoutes } from './routes/agents.js';
import { tokenRoutes } from './routes/tokens.js';
import { delegationRoutes } from './routes/delegation.js';
import { channelRoutes } from './routes/channels.js';
import { conversationRoutes } from './routes/conversations.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { operatingRoutes } from './routes/operating.js';
import { eventRoutes } from './routes/events.js';
import { inboxRoutes } from './routes/inbox.js';
import { inboxStreamRoutes } from './routes/inbox-stream.js';
import { linkRoutes } from './routes/links.js';
import { pushRoutes } from './routes/push.js';
import { messageRoutes } from './routes/messages.js';
import { demoRoutes } from './routes/demo.js';
import { metaRoutes } from './routes/meta.js';
import { rememberedToolRoutes } from './routes/remembered-tools.js';
import { requestRoutes } from './routes/requests.js';
import { StreamGate, type StreamLimits } from './stream-limits.js';
import { hooksOf } from '../heed.js';
import { parseTraceparent, runUnder } from '../telemetry/context.js';
import type { DemoInfo } from '../protocol/responses.js';

export interface AppOptions {
  auth?: AuthConfig;
  /** Largest request body accepted, in bytes; larger ones get 413 `payload_too_large`. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Aborting it ends every open event stream (the server is shutting down). */
  signal?: AbortSignal;
  /** A built web console (`dist/ui`) to serve at `/`, with page paths falling back to its index.html. */
  consoleDir?: string;
  /** `Host` names answered besides the loopback ones (see `HeedConfig.allowedHosts`); a list turns the `Host` check on. */
  allowedHosts?: AllowedHosts;
  /** The address the server listens on: a loopback one turns the `Host` check on (421 `host_not_allowed`). */
  listenAddress?: string;
  /** Live streams: how many one caller may hold open, and how much unread data one may queue. */
  streams?: StreamLimits;
  /** Pages on these origins may call the API from a browser (see `HeedConfig.cors`); off unless given. */
  cors?: CorsConfig;
  /** `GET /metrics` in Prometheus' format (see `HeedConfig.metrics`); off unless set. */
  metrics?: MetricsConfig;
  /** `/mcp`: Heed as an MCP server (see `HeedConfig.mcp`); off unless set. */
  mcp?: McpServeOptions;
  /**
   * Set by `heed serve` without a config, on loopback: the demo's users and their tokens, served at
   * `GET /api/demo` (404 without it). Never set for a server with a config.
   */
  demo?: DemoInfo;
}

export type HeedApp = Hono<AppEnv>;

/** The routes of docs/http.md, in the order they are documented. */
export function apiRoutes(): Route[] {
  const routes: Route[] = [
    ...agentRoutes,
    ...delegationRoutes,
    ...tokenRoutes,
    ...conversationRoutes,
    ...messageRoutes,
    ...actionRoutes,
    ...eventRoutes,
    ...rememberedToolRoutes,
    ...inboxRoutes,
    ...decisionRoutes,
    ...inboxStreamRoutes,
    ...requestRoutes,
    ...linkRoutes,
    ...pushRoutes,
    ...deliveryRoutes,
    ...operatingRoutes,
    ...queueRoutes,
    ...aiSdkChatRoutes,
    ...agUiRoutes,
    ...a2aRoutes,
    ...channelRoutes,
    ...demoRoutes,
  ];
  routes.push(...metaRoutes(() => routes));
  return routes;
}

/**
 * The HTTP API of a Heed as a Hono app: `app.fetch(request)` answers any `Request`.
 *
 * @example
 * ```ts
 * const app = createApp(heed, { auth: { tokens: { 'tok-a': 'alice' } } });
 * const response = await app.fetch(new Request('http://localhost/api/agents', { headers: { authorization: 'Bearer tok-a' } }));
 * ```
 */
export function createApp(heed: Heed, options: AppOptions = {}): HeedApp {
  checkAppOptions(options);
  const app = new Hono<AppEnv>();
  const maxSize = options.maxBodyBytes ?? 1024 * 1024;
  app.onError((error) => errorResponse(error));
  app.notFound((c) => errorResponse(new HeedError('not_found', `There is no route ${c.req.method} ${c.req.path}.`)));
  // The one read past the public Heed: every route gets this typed surface as `host`.
  const host = hooksOf(heed);
  // Before anything else, the console's files and /health included: a rebound DNS name gets nothing.
  // With traces on, a request that carries a `traceparent` continues the caller's trace (docs/operating.md).
  // One layer for both: every request passes it, so it costs one step of the chain, not two.
  const hosts = hostCheck(options);
  app.use('*', async (c, next) => {
    hosts?.(c);
    const parent = host.tracing.enabled ? parseTraceparent(c.req.header('traceparent')) : undefined;
    return parent ? runUnder(parent, next) : next();
  });
  // Before sign-in: a preflight carries no token, and every answer (errors included) needs the headers.
  if (options.cors) {
    const cors = corsMiddleware(options.cors);
    app.use('/api/*', cors);
    app.use('/health', cors);
    app.use('/health/*', cors);
  }
  const signIn = signInOf(
    options.auth,
    host.values,
    () => host.now(),
    () => host.accessChanged(),
    (inputs, values) => host.audit(inputs, values),
  );
  if (signIn) mountSignIn(app, options.auth!, signIn);
  const personal = new PersonalTokens(
    host.values,
    () => new Date(host.now()),
    (inputs, values) => host.audit(inputs, values),
  );
  const resolveCaller = callerResolver(options.auth, signIn, personal);
  const auth = callerMiddleware(resolveCaller);
  mountDevice(app, { values: host.values, tokens: personal, now: () => new Date(host.now()), auth });
  const streams = new StreamGate(options.streams);
  const demo = options.demo ? { users: options.demo.users.map((user) => ({ ...user })) } : undefined;
  const admins = options.auth?.admins;
  // Every request under /api passes this one layer: what the routes read from the context, then who calls.
  app.use('/api/*', async (c, next) => {
    c.set('streams', streams);
    c.set('personalTokens', personal);
    if (demo) c.set('demo', demo);
    if (admins) c.set('admins', admins);
    // The document, its page and liveness are public; everything else under /api knows its caller.
    // Answer links: the signed token is the permission, so no sign-in is asked for (docs/notifications.md).
    // Channels' endpoints: the workspace's signature is the proof (docs/channels.md), checked by the adapter.
    const path = c.req.path;
    if (
      path === '/api/openapi.json' ||
      path === '/api/docs' ||
      path.startsWith('/api/links/') ||
      path.startsWith('/api/channels/')
    ) {
      c.set('caller', { userId: null });
      return next();
    }
    const caller = await resolveCaller(c.req.raw, peerAddress(c.env));
    // Admins read every conversation (src/engine/access.ts): the flag comes from auth.admins alone, never
    // from a token's or a hook's own fields.
    const admin = names(admins, caller);
    c.set('caller', admin || caller.admin !== undefined ? withAdmin(caller, admin) : caller);
    return next();
  });
  // A2A push notifications wait in the outbox until an app that can build their tasks is up (docs/a2a.md).
  host.notifier.a2aPush ??= pushSender(host);
  const perMinute = host.conversationsPerMinute;
  const newConversations = perMinute > 0 ? new RateLimiter(perMinute) : undefined;
  mountRoutes(app, heed, host, apiRoutes(), {
    signal: options.signal ?? new AbortController().signal,
    maxBodyBytes: maxSize,
    newConversations,
    conversationsPerMinute: perMinute,
  });
  if (options.mcp?.server)
    mountMcpServer(app, heed, {
      config: options.mcp,
      auth,
      waitingPerCaller: host.mcpWaitingPerCaller,
      maxBodyBytes: maxSize,
      now: () => host.now(),
      newConversations,
      conversationsPerMinute: perMinute,
    });
  if (options.metrics) app.get('/metrics', metricsHandler(host, options.metrics, options.auth, signIn, personal));
  if (options.consoleDir) mountConsole(app, options.consoleDir);
  return app;
}

/**
 * `createApp(...).fetch` as a plain function, for runtimes that take one.
 *
 * @example
 * ```ts
 * export default { fetch: createFetch(heed) }; // a runtime that takes a fetch handler
 * ```
 */
export function createFetch(heed: Heed, options: AppOptions = {}): (request: Request) => Promise<Response> {
  const app = createApp(heed, options);
  return async (request) => app.fetch(request);
}

/** The caller with `admin` set as `auth.admins` says (the object keeps its functions: `stillSignedIn`). */
function withAdmin(caller: Caller, admin: boolean): Caller {
  const { admin: _claimed, ...rest } = caller;
  return admin ? { ...rest, admin: true } : rest;
}
