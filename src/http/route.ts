import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { Caller } from '../caller.js';
import type { HeedErrorCode } from '../errors.js';
import type { Heed } from '../heed.js';
import { invalidRequest, readJson } from './errors.js';

/** Hono environment of the app: the auth middleware puts the caller here. */
export type AppEnv = { Variables: { caller: Caller } };

/** One documented response of a route. */
export interface RouteResponse {
  description: string;
  /** JSON body; omitted for an empty response. */
  schema?: z.ZodType;
  /** The response is a Server-Sent Events stream (alone, or as the alternative to the JSON body). */
  events?: string;
}

/** What a route is: its method, path, the schemas it validates with and what it answers. */
export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: 'get' | 'post' | 'delete';
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
  /** The body as documented, when part of it is checked later (see `actionEnvelope`). */
  documentedBody?: z.ZodType;
  responses: Record<number, RouteResponse>;
  /** Error codes this route may answer with (each also documented). */
  errors: HeedErrorCode[];
}

/** What a handler receives: validated input, the caller and the Heed it serves. */
export interface RouteInput<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  c: Context<AppEnv>;
  heed: Heed;
  caller: Caller;
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  /** Aborted when the server shuts down: live streams end. */
  signal: AbortSignal;
}

export interface Route {
  spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>;
  handle(input: RouteInput<z.ZodType, z.ZodType, z.ZodType>): Response | Promise<Response>;
}

/** Declares a route; the same spec drives validation and the OpenAPI document. */
export function defineRoute<P extends z.ZodType = z.ZodUnknown, Q extends z.ZodType = z.ZodUnknown, B extends z.ZodType = z.ZodUnknown>(
  spec: RouteSpec<P, Q, B>,
  handle: (input: RouteInput<P, Q, B>) => Response | Promise<Response>,
): Route {
  return { spec, handle } as unknown as Route;
}

function parse(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw invalidRequest(result.error, where);
  return result.data;
}

/** Registers routes on the app, validating path parameters, query and body before each handler. */
export function mountRoutes(app: Hono<AppEnv>, heed: Heed, routes: Route[], options: { signal: AbortSignal; maxBodyBytes: number }): void {
  const { signal, maxBodyBytes } = options;
  for (const route of routes) {
    const { spec } = route;
    app.on(spec.method.toUpperCase(), spec.path, async (c) => {
      const params = parse(spec.params, c.req.param(), 'path');
      const query = parse(spec.query, c.req.query(), 'query');
      const body = spec.body ? parse(spec.body, await readJson(c.req.raw, maxBodyBytes), 'body') : undefined;
      return route.handle({ c, heed, caller: c.get('caller'), params, query, body, signal });
    });
  }
}
