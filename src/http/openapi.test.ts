import { allKinds } from '../kinds/index.js';
import { describe, expect, it } from 'vitest';
import { createHeed } from '../heed.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { apiRoutes, createApp } from './app.js';
import { eventData } from '../protocol/events.js';
import { openApiDocument } from './openapi.js';

describe('OpenAPI document', () => {
  const document = openApiDocument(apiRoutes()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { schema: { $ref: string } }> };
          responses: Record<string, unknown>;
          parameters?: Array<{ name: string; in: string }>;
        }
      >
    >;
    components: { schemas: Record<string, Record<string, unknown>> };
  };

  it('lists every route of docs/http.md#routes', () => {
    const routes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        'GET /api/agents',
        'GET /api/me',
        'GET /api/me/delegation',
        'PUT /api/me/delegation',
        'DELETE /api/me/delegation',
        'GET /api/me/tokens',
        'POST /api/me/tokens',
        'DELETE /api/me/tokens/{id}',
        'GET /api/agents/{name}',
        'POST /api/channels/{platform}/events',
        'POST /api/conversations',
        'GET /api/conversations',
        'GET /api/conversations/{id}',
        'POST /api/conversations/{id}/messages',
        'POST /api/conversations/{id}/messages/stream',
        'GET /api/conversations/{id}/actions',
        'POST /api/conversations/{id}/actions/{actionId}',
        'POST /api/conversations/{id}/actions/{actionId}/stream',
        'POST /api/conversations/{id}/actions/{actionId}/extend',
        'POST /api/conversations/{id}/cancel',
        'GET /api/conversations/{id}/events',
        'GET /api/conversations/{id}/events/stream',
        'GET /api/conversations/{id}/remembered-tools',
        'DELETE /api/conversations/{id}/remembered-tools/{tool}',
        'POST /api/conversations/{id}/branch',
        'GET /api/inbox',
        'GET /api/inbox/stream',
        'POST /api/inbox/decisions',
        'GET /api/queue',
        'POST /api/requests',
        'GET /api/requests/{id}',
        'GET /api/requests/{id}/wait',
        'GET /api/links/{token}',
        'POST /api/links/{token}',
        'POST /api/links/{token}/extend',
        'GET /api/push/key',
        'GET /api/me/push-subscriptions',
        'POST /api/me/push-subscriptions',
        'DELETE /api/me/push-subscriptions',
        'GET /api/deliveries',
        'GET /api/audit',
        'DELETE /api/people/{userId}',
        'POST /api/ai-sdk/chat/{agent}',
        'GET /api/ai-sdk/chat/{agent}/{id}/messages',
        'GET /api/ai-sdk/chat/{agent}/{id}/stream',
        'POST /api/ag-ui/{agent}',
        'GET /api/ag-ui/{agent}/capabilities',
        'GET /api/a2a/{agent}/.well-known/agent-card.json',
        'POST /api/a2a/{agent}',
        'GET /api/demo',
        'GET /api/openapi.json',
        'GET /api/docs',
        'GET /health',
        'GET /health/ready',
      ].sort(),
    );
  });

  it('documents bodies from the zod schemas the routes validate with, and every $ref resolves', () => {
    const resolve = document.paths['/api/conversations/{id}/actions/{actionId}'].post;
    expect(resolve.requestBody!.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ResolveActionRequest',
    });
    const body = document.components.schemas.ResolveActionRequest as { properties: { resolution: unknown } };
    expect(body.properties.resolution).toMatchObject({ $ref: '#/components/schemas/Resolution' });
    expect(JSON.stringify(document.components.schemas.ApprovalResolution)).toContain('approvedArgs');
    expect(Object.keys(resolve.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '402',
      '403',
      '404',
      '409',
      '410',
      '413',
      '415',
      '421',
      '429',
      '500',
      '503',
    ]);
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (match) => match[1],
    );
    for (const ref of refs) expect(document.components.schemas[ref], ref).toBeDefined();
    expect(
      document.paths['/api/conversations/{id}/events/stream'].get.parameters!.map((p) => `${p.in}:${p.name}`),
    ).toEqual(['path:id', 'query:after', 'header:Last-Event-ID']);
  });

  it('documents requests from anywhere: their body, 201 or 200 for a repeated key, 202 for a wait that ran out', () => {
    const create = document.paths['/api/requests'].post;
    expect(create.requestBody!.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateRequestRequest',
    });
    const body = document.components.schemas.CreateRequestRequest as { properties: Record<string, unknown> };
    expect(Object.keys(body.properties).sort()).toEqual(
      ['assignees', 'callbackUrl', 'channel', 'expiresAt', 'idempotencyKey', 'metadata', 'request'].sort(),
    );
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['200', '201', '400']));
    expect((create.responses['400'] as { description: string }).description).toContain('callback_not_allowed');
    const wait = document.paths['/api/requests/{id}/wait'].get;
    expect(Object.keys(wait.responses)).toEqual(expect.arrayContaining(['200', '202', '404']));
    expect(wait.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id', 'query:timeoutSeconds']);
  });

  it('describes actions, resolutions and events as unions discriminated by kind or type, with typed answers and event data', () => {
    const { schemas } = document.components;
    // Every registered kind, each under its own name (a kind added later joins these without changing this test).
    const registered = allKinds().map((kind) => [kind.kind, `#/components/schemas/${kind.wire.docName}Action`]);
    expect(schemas.Action.discriminator).toEqual({ propertyName: 'kind', mapping: Object.fromEntries(registered) });
    expect(schemas.Action.discriminator).toMatchObject({
      mapping: {
        approval: '#/components/schemas/ApprovalAction',
        question: '#/components/schemas/QuestionAction',
        client_tool: '#/components/schemas/ClientToolAction',
        url: '#/components/schemas/UrlAction',
      },
    });
    expect((schemas.Action.oneOf as unknown[]).length).toBe(registered.length);
    expect(schemas.QuestionAction).toMatchObject({ required: expect.arrayContaining(['kind', 'questions']) });
    expect(schemas.ApprovalAction).toMatchObject({
      required: expect.arrayContaining(['kind', 'title', 'summary', 'canRemember']),
    });
    expect(schemas.Resolution.discriminator).toMatchObject({ propertyName: 'type' });
    const answers = (schemas.QuestionResolution as { properties: { answers: { additionalProperties: unknown } } })
      .properties.answers;
    expect(answers.additionalProperties).toEqual({
      anyOf: [
        { type: ['string', 'number', 'boolean'] },
        { type: 'array', items: { type: ['string', 'number', 'boolean'] } },
      ],
    });
    expect(schemas.Event.discriminator).toMatchObject({ propertyName: 'type' });
    expect(Object.keys((schemas.Event.discriminator as { mapping: object }).mapping)).toEqual(Object.keys(eventData));
    expect(schemas.ActionResolvedEvent).toMatchObject({
      properties: {
        data: {
          // The surfaces Heed knows, or the name of a platform added beside them (docs/architecture.md).
          properties: {
            channel: {
              anyOf: [
                { enum: expect.arrayContaining(['api', 'system', 'timeout', 'remembered', 'link', 'slack']) },
                { type: 'string' },
              ],
            },
          },
        },
      },
    });
  });

  it('gives the turn routes one JSON answer, and their streams separate routes', () => {
    type Responses = Record<string, { content?: Record<string, unknown> }>;
    const responses = (path: string) => document.paths[path].post.responses as Responses;
    expect(Object.keys(responses('/api/conversations/{id}/messages')['200'].content!)).toEqual(['application/json']);
    expect(Object.keys(responses('/api/conversations/{id}/actions/{actionId}')['200'].content!)).toEqual([
      'application/json',
    ]);
    expect(Object.keys(responses('/api/conversations/{id}/messages/stream')['200'].content!)).toEqual([
      'text/event-stream',
    ]);
    expect(Object.keys(responses('/api/conversations/{id}/actions/{actionId}/stream')['200'].content!)).toEqual([
      'text/event-stream',
    ]);
    // Every route with a body can be too large; every route answers a Host it does not serve with 421.
    expect(responses('/api/conversations')).toHaveProperty('413');
    expect(responses('/api/conversations/{id}/branch')).toHaveProperty('413');
    expect(document.paths['/health'].get.responses).toHaveProperty('421');
  });

  it('is served at /api/openapi.json', async () => {
    const heed = createHeed({
      agents: [{ name: 'a', model: scriptedModel(() => ({ text: 'hi' })) }],
      sweepIntervalMs: 0,
    });
    const response = await createApp(heed).request('/api/openapi.json');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(document)));
    await heed.close();
  });
});
