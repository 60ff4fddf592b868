import { describe, expect, it } from 'vitest';
import { createHeed } from '../heed.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { apiRoutes, createApp } from './app.js';
import { openApiDocument } from './openapi.js';

describe('OpenAPI document', () => {
  const document = openApiDocument(apiRoutes()) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref: string } }> }; responses: Record<string, unknown>; parameters?: Array<{ name: string; in: string }> }>>;
    components: { schemas: Record<string, Record<string, unknown>> };
  };

  it('lists every route of DESIGN §9', () => {
    const routes = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    expect(routes.sort()).toEqual(
      [
        'GET /api/agents',
        'POST /api/conversations',
        'GET /api/conversations',
        'GET /api/conversations/{id}',
        'POST /api/conversations/{id}/messages',
        'GET /api/conversations/{id}/actions',
        'POST /api/conversations/{id}/actions/{actionId}',
        'POST /api/conversations/{id}/cancel',
        'GET /api/conversations/{id}/events',
        'GET /api/conversations/{id}/events/stream',
        'GET /api/conversations/{id}/remembered-tools',
        'DELETE /api/conversations/{id}/remembered-tools/{tool}',
        'POST /api/conversations/{id}/branch',
        'GET /api/inbox',
        'POST /api/ai-sdk/chat/{agent}',
        'GET /api/ai-sdk/chat/{agent}/{id}/messages',
        'GET /api/ai-sdk/chat/{agent}/{id}/stream',
        'GET /api/openapi.json',
        'GET /api/docs',
        'GET /health',
      ].sort(),
    );
  });

  it('documents bodies from the zod schemas the routes validate with, and every $ref resolves', () => {
    const resolve = document.paths['/api/conversations/{id}/actions/{actionId}'].post;
    expect(resolve.requestBody!.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ResolveActionRequest' });
    const body = document.components.schemas.ResolveActionRequest as { properties: { resolution: unknown } };
    expect(body.properties.resolution).toMatchObject({ $ref: '#/components/schemas/Resolution' });
    expect(JSON.stringify(document.components.schemas.Resolution)).toContain('approvedArgs');
    expect(Object.keys(resolve.responses).sort()).toEqual(['200', '400', '401', '402', '403', '404', '409', '410', '413', '500']);
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]);
    for (const ref of refs) expect(document.components.schemas[ref], ref).toBeDefined();
    expect(document.paths['/api/conversations/{id}/events/stream'].get.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual([
      'path:id',
      'query:after',
      'header:Last-Event-ID',
    ]);
  });

  it('is served at /api/openapi.json', async () => {
    const heed = createHeed({ agents: [{ name: 'a', model: scriptedModel(() => ({ text: 'hi' })) }], sweepIntervalMs: 0 });
    const response = await createApp(heed).request('/api/openapi.json');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(document)));
    await heed.close();
  });
});
