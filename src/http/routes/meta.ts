import { openApiDocument } from '../openapi.js';
import { defineRoute, type Route } from '../route.js';
import { healthResponse, openApiResponse } from '../schemas.js';
import { docsPage } from '../docs-page.js';
import { readyRoute } from './ready.js';

/** Liveness, readiness, the OpenAPI document of `routes` (itself included) and a page that reads it. */
export function metaRoutes(routes: () => Route[]): Route[] {
  let document: Record<string, unknown> | undefined;
  return [
    defineRoute(
      {
        method: 'get',
        path: '/health',
        operationId: 'health',
        summary: 'Liveness',
        tag: 'meta',
        responses: { 200: { description: 'The server is up.', schema: healthResponse } },
        errors: [],
      },
      () => Response.json({ ok: true }),
    ),
    readyRoute,
    defineRoute(
      {
        method: 'get',
        path: '/api/openapi.json',
        operationId: 'openapi',
        summary: 'This document',
        tag: 'meta',
        responses: { 200: { description: 'The OpenAPI 3.1 document of this API.', schema: openApiResponse } },
        errors: [],
      },
      () => Response.json((document ??= openApiDocument(routes()))),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/docs',
        operationId: 'docs',
        summary: 'A page that shows the OpenAPI document',
        tag: 'meta',
        responses: { 200: { description: 'An HTML page that renders the document.', html: true } },
        errors: [],
      },
      () => new Response(docsPage, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
    ),
  ];
}
