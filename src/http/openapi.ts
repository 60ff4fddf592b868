import { z } from 'zod';
import { errorStatus, type HeedErrorCode } from '../errors.js';
import type { Route } from './route.js';
import { docSchemas } from './schemas.js';

type JsonSchema = Record<string, unknown>;

/** The OpenAPI 3.1 document of the given routes, built from the zod schemas they validate with. */
/** Routes that answer without the store: they never answer 503 `store_unavailable`. */
const STORELESS = new Set(['health', 'openapi', 'docs', 'listAgents']);

export function openApiDocument(routes: Route[], info: { title?: string; version?: string } = {}): JsonSchema {
  const names = nameSchemas(routes);
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of names) registry.add(schema, { id });
  const converted = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'input',
    unrepresentable: 'any',
  }) as { schemas: Record<string, JsonSchema> };
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, schema] of Object.entries(converted.schemas)) {
    const { $schema: _schema, $id: _id, ...rest } = schema;
    schemas[id] = rest;
  }
  for (const [schema, id] of names) {
    const discriminator = discriminatorOf(schema, names);
    if (discriminator) schemas[id].discriminator = discriminator;
  }
  const ref = (schema: z.ZodType) => ({ $ref: `#/components/schemas/${names.get(schema)}` });

  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of routes) {
    const path = spec.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const operation: Record<string, unknown> = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
    };
    const parameters = [...parametersOf(spec.params, 'path'), ...parametersOf(spec.query, 'query')];
    if (spec.operationId === 'followEvents') {
      parameters.push({
        name: 'Last-Event-ID',
        in: 'header',
        required: false,
        schema: { type: 'integer', minimum: 0 },
        description: 'Resume after this event.',
      });
    }
    if (parameters.length) operation.parameters = parameters;
    const body = spec.documentedBody ?? spec.body;
    if (body) operation.requestBody = { required: true, content: { 'application/json': { schema: ref(body) } } };

    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      const content: Record<string, unknown> = {};
      if (response.schema) content['application/json'] = { schema: ref(response.schema) };
      if (response.events) content['text/event-stream'] = { schema: { type: 'string', description: response.events } };
      if (response.html) content['text/html'] = { schema: { type: 'string' } };
      responses[status] = { description: response.description, ...(Object.keys(content).length ? { content } : {}) };
    }
    const byStatus = new Map<number, HeedErrorCode[]>();
    // Every body may be too large, and a JSON body is refused when sent as anything else.
    const bodyErrors: HeedErrorCode[] = body
      ? ['payload_too_large', ...(spec.bodyType !== 'any' ? (['unsupported_media_type'] as const) : [])]
      : [];
    // Any route, /health included, answers 421 to a Host it does not serve (when the Host check is on);
    // any route that reads or writes the store answers 503 while the database is out of reach or full.
    const storeErrors: HeedErrorCode[] = STORELESS.has(spec.operationId) ? [] : ['store_unavailable'];
    for (const code of new Set<HeedErrorCode>([
      ...spec.errors,
      ...bodyErrors,
      'host_not_allowed',
      'internal_error',
      ...storeErrors,
    ])) {
      const status = errorStatus[code];
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      responses[String(status)] = {
        description: codes.map((code) => `\`${code}\``).join(', '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    operation.responses = responses;
    (paths[path] ??= {})[spec.method] = operation;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: info.title ?? 'Heed HTTP API',
      version: info.version ?? '0.1.0',
      description:
        'Agents that pause to ask a person: approvals, questions, client tools and URLs. Errors are always ' +
        '`{ "error": { "code", "message", "details"? } }`. Server-Sent Events use the event type as the SSE event name, ' +
        'the event number as the SSE id and the event as JSON data.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative: the document describes the server that serves it.
    servers: [{ url: '/', description: 'The server that serves this document.' }],
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A token mapped to a user in the server config.' },
      },
    },
    // No token is allowed too (anonymous) unless the server sets `auth.required`.
    security: [{ bearer: [] }, {}],
    paths,
  };
}

/** Every schema of the document with its component name: the named ones, then one per route body and response. */
function nameSchemas(routes: Route[]): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  for (const [name, schema] of Object.entries(docSchemas)) names.set(schema, name);
  const pascal = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
  for (const { spec } of routes) {
    const body = spec.documentedBody ?? spec.body;
    if (body && !names.has(body)) names.set(body, `${pascal(spec.operationId)}Request`);
    for (const [status, response] of Object.entries(spec.responses)) {
      if (response.schema && !names.has(response.schema))
        names.set(response.schema, `${pascal(spec.operationId)}Response${status === '200' ? '' : status}`);
    }
  }
  return names;
}

/**
 * `discriminator` of a named `z.discriminatedUnion` whose options are all named: the property and,
 * per value, the option's component, so generated clients narrow on it.
 */
function discriminatorOf(schema: z.ZodType, names: Map<z.ZodType, string>): JsonSchema | undefined {
  if (!(schema instanceof z.ZodDiscriminatedUnion)) return undefined;
  const discriminator = schema.def.discriminator;
  const mapping: Record<string, string> = {};
  for (const option of schema.options) {
    if (!(option instanceof z.ZodObject)) return undefined;
    const name = names.get(option);
    const key = option.shape[discriminator];
    const values = key instanceof z.ZodLiteral ? key.def.values : undefined;
    if (!name || !values) return undefined;
    for (const value of values) mapping[String(value)] = `#/components/schemas/${name}`;
  }
  return { propertyName: discriminator, mapping };
}

function parametersOf(schema: z.ZodType | undefined, place: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const converted = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema & {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(converted.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: place,
      required: place === 'path' || (converted.required ?? []).includes(name),
      schema: rest,
      ...(typeof description === 'string' ? { description } : {}),
    };
  });
}
