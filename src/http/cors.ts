import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { CorsConfig } from '../config.js';
import type { AppEnv } from './route.js';

/**
 * CORS for the listed origins only (`cors.origins`): a page there may call the API, the AI SDK chat
 * endpoint and the streams with a bearer token and JSON bodies, and read `Retry-After`. A preflight is
 * answered here, before sign-in and before any route, so it needs no token and meets no body rule; a
 * page on any other origin gets no CORS headers, and its browser keeps the answer from it.
 */
export function corsMiddleware(config: CorsConfig): MiddlewareHandler<AppEnv> {
  return cors({
    origin: [...config.origins],
    allowMethods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID'],
    exposeHeaders: ['Retry-After', 'x-vercel-ai-ui-message-stream'],
    credentials: true,
    maxAge: 600,
  }) as MiddlewareHandler<AppEnv>;
}
