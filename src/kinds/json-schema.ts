import { z } from 'zod';

/*
 * JSON Schema for tools' inputs and the arguments a request shows: a zod schema turned into JSON Schema,
 * or a JSON Schema given (an MCP server's tool) turned into a zod schema that checks calls. Kept with the
 * kinds, which show and check arguments with it; src/tool.ts re-exports it for tool authors.
 */

/** JSON Schema of a tool's input, computed once per tool. */
const schemaCache = new WeakMap<object, Record<string, unknown>>();

/**
 * A tool input given as JSON Schema (an MCP server's tool, say): the model is offered the schema as
 * given, and calls are checked with a zod schema built from it. A schema zod cannot read (such as one
 * with `definitions` references) still goes to the model as given; calls then only need to be objects.
 *
 * @example
 * ```ts
 * const lookup = tool({ description: 'Look a user up.', inputSchema: jsonSchemaInput({ type: 'object', properties: { email: { type: 'string' } } }), execute: findUser });
 * ```
 */
export function jsonSchemaInput(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  let validator: z.ZodType<Record<string, unknown>>;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType<
      Record<string, unknown>
    >;
  } catch {
    validator = z.record(z.string(), z.unknown());
  }
  const { $schema: _dialect, ...offered } = schema;
  schemaCache.set(validator, offered);
  return validator;
}

/** An argument schema as kept on a request: a zod schema as JSON Schema (of its input), a JSON Schema as given. */
export function argsJsonSchema(schema: z.ZodType | Record<string, unknown>): Record<string, unknown> {
  if (schema instanceof z.ZodType) return inputJsonSchema({ inputSchema: schema });
  const { $schema: _dialect, ...given } = schema;
  return given;
}

/** A tool's input schema as JSON Schema (of its input), computed once per schema. */
export function inputJsonSchema(definition: { inputSchema: z.ZodType }): Record<string, unknown> {
  let schema = schemaCache.get(definition.inputSchema);
  if (!schema) {
    schema = z.toJSONSchema(definition.inputSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete schema.$schema;
    schemaCache.set(definition.inputSchema, schema);
  }
  return schema;
}
