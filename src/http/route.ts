import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { Caller } from '../caller.js';
import type { HeedErrorCode } from '../errors.js';
import { HeedError } from '../errors.js';
import { clip } from '../kinds/clip.js';
import type { Heed } from '../heed.js';
import type { HeedHooks } from '../hooks.js';
import type { DemoInfo } from '../protocol/responses.js';
import { invalidRequest, readJson } from './errors.js';
import { clientKey, rateLimited, type RateLimiter } from './rate-limit.js';
import type { StreamGate } from './stream-limits.js';
import { mustHaveScope, type PersonalTokens, type Scope } from './sign-in/tokens.js';
import { peerAddress } from './trusted-header.js';

/**
 * Hono environment of the app: the auth middleware puts the caller here; `streams` counts live streams; `demo` is
 * set on the demo; `admins` is `auth.admins` (src/http/operators.ts).
 */
export type AppEnv = {
  Variables: {
    caller: Caller;
    streams?: StreamGate;
    demo?: DemoInfo;
    admins?: readonly string[];
    personalTokens?: PersonalTokens;
  };
};

/** One documented response of a route. */
export interface RouteResponse {
  description: string;
  /** JSON body; omitted for an empty response. */
  schema?: z.ZodType;
  /** The response is a Server-Sent Events stream: what it carries. */
  events?: string;
  /** The response is an HTML page. */
  html?: true;
}

/** What a route is: its method, path, the schemas it validates with and what it answers. */
export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Hono form, e.g. `/api/conversations/:id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  /** Validated before the handler runs. */
  body?: B;
  /**
   * How the body must be sent. `json` (the default) needs `Content-Type: application/json`: a page on
   * another site can only send one after a CORS preflight, which this server never grants. `any` skips
   * the check, for a sender that proves itself another way (a signed webhook).
   */
  bodyType?: 'json' | 'any';
  /** The body as documented, when part of it is checked later (see `actionEnvelope`). */
  documentedBody?: z.ZodType;
  responses: Record<number, RouteResponse>;
  /** Error codes this route may answer with (each also documented). */
  errors: HeedErrorCode[];
  /**
   * What a personal token needs for it (docs/auth.md): by default `read` for a GET and `converse` for a
   * change; answering routes say `answer`, operator routes `admin`.
   */
  scope?: Scope;
}

/** What a handler receives: validated input, the caller and the Heed it serves. */
export interface RouteInput<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  c: Context<AppEnv>;
  heed: Heed;
  /** What the HTTP layer needs beyond the public Heed, read once when the app is made (src/hooks.ts). */
  host: HeedHooks;
  caller: Caller;
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  /** Aborted when the server shuts down: live streams end. */
  signal: AbortSignal;
  /** Call before starting a conversation: counts it against the caller's `limits.conversationsPerMinute` (429 past it). */
  countNewConversation(): void;
}

/** The Heed a route serves and the HTTP layer's surface beside it, as helpers of a route take them. */
export type Served = Pick<RouteInput<z.ZodType, z.ZodType, z.ZodType>, 'heed' | 'host'>;

export interface Route {
  spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>;
  handle(input: RouteInput<z.ZodType, z.ZodType, z.ZodType>): Response | Promise<Response>;
}

/** Declares a route; the same spec drives validation and the OpenAPI document. */
export function defineRoute<
  P extends z.ZodType = z.ZodUnknown,
  Q extends z.ZodType = z.ZodUnknown,
  B extends z.ZodType = z.ZodUnknown,
>(spec: RouteSpec<P, Q, B>, handle: (input: RouteInput<P, Q, B>) => Response | Promise<Response>): Route {
  return { spec, handle };
}

function parse(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw invalidRequest(result.error, where);
  return result.data;
}

/** `application/json`, with or without parameters (`; charset=utf-8`). */
const JSON_TYPE = /^application\/json\s*(;|$)/i;

const isJsonType = (request: Request) => JSON_TYPE.test(request.headers.get('content-type')?.trim() ?? '');

/** True when the request says it carries a body (an empty POST, `curl -X POST`, says no). */
function declaresBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  return request.headers.has('transfer-encoding') || (length !== null && Number(length) !== 0);
}

/**
 * Reads a route's JSON body. A body sent as anything but JSON is refused: before it is read when its
 * length is declared, otherwise once read and found not empty. No body at all reads as `{}`.
 */
async function readRouteBody(request: Request, maxBodyBytes: number, requireJson: boolean): Promise<unknown> {
  if (!requireJson || isJsonType(request)) return readJson(request, maxBodyBytes);
  if (declaresBody(request)) throw unsupportedType(request);
  const value = await readJson(request, maxBodyBytes);
  if (typeof value !== 'object' || value === null || Object.keys(value).length > 0) throw unsupportedType(request);
  return value;
}

function unsupportedType(request: Request): HeedError {
  const type = request.headers.get('content-type');
  return new HeedError(
    'unsupported_media_type',
    `This route takes a JSON body: send it with Content-Type: application/json${type ? ` (got ${clip(type, 100)})` : ''}.`,
    {
      details: { contentType: type === null ? null : clip(type, 100) },
    },
  );
}

/** The address the request came from, when it came through `@hono/node-server`. */
/** Registers routes on the app, validating path parameters, query and body before each handler. */
export function mountRoutes(
  app: Hono<AppEnv>,
  heed: Heed,
  host: HeedHooks,
  routes: Route[],
  options: {
    signal: AbortSignal;
    maxBodyBytes: number;
    newConversations?: RateLimiter;
    conversationsPerMinute?: number;
  },
): void {
  const { signal, maxBodyBytes, newConversations } = options;
  for (const route of routes) {
    const { spec } = route;
    const scope = spec.scope ?? (spec.method === 'get' ? 'read' : 'converse');
    app.on(spec.method.toUpperCase(), spec.path, async (c) => {
      // A personal token goes no further than its scopes (checked before the body is read).
      mustHaveScope(c.get('caller'), scope);
      // Read only for a route that checks them: a route without a query schema never looks at its query.
      const params = spec.params ? parse(spec.params, c.req.param(), 'path') : undefined;
      const query = spec.query ? parse(spec.query, c.req.query(), 'query') : undefined;
      const body = spec.body
        ? parse(spec.body, await readRouteBody(c.req.raw, maxBodyBytes, spec.bodyType !== 'any'), 'body')
        : undefined;
      const caller = c.get('caller');
      const countNewConversation = () => {
        if (!newConversations) return;
        // An anonymous caller is counted by its address; inside another server (no Node connection) there is none to count by.
        const address = peerAddress(c.env);
        if (caller.userId === null && address === undefined) return;
        const taken = newConversations.take(clientKey(caller.userId, address));
        if (!taken.ok) throw rateLimited(options.conversationsPerMinute ?? 0, taken.retryAfterSeconds);
      };
      return route.handle({ c, heed, host, caller, params, query, body, signal, countNewConversation });
    });
  }
}
