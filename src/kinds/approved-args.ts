import { z } from 'zod';
import { HeedError } from '../errors.js';
import type { JsonValue } from '../protocol/values.js';
import { jsonSchemaInput } from './json-schema.js';
import { clip } from './clip.js';
import { issueList } from './issues.js';
import { isPlainObject } from './plain-object.js';

/*
 * The check of the arguments a person approved instead of the ones asked about (`approvedArgs`): against
 * the tool's own zod schema, or the JSON Schema a tool gave `ctx.approve({ argsSchema })`. A key the schema
 * does not declare is refused by name even where zod would drop it silently: an edit cannot slip in an
 * argument nobody reviewed.
 */

/** The schemas to check an edit against: a validator, and the JSON Schema that says which keys exist. */
export interface ArgsSchemas {
  validator: z.ZodType;
  jsonSchema: Record<string, unknown>;
}

/** The validator for a JSON Schema kept on a request (built once per schema text: requests are read from the store each time). */
const validators = new Map<string, z.ZodType>();

export function schemasFromJson(jsonSchema: Record<string, unknown>): ArgsSchemas {
  const key = JSON.stringify(jsonSchema);
  let validator = validators.get(key);
  if (!validator) {
    validator = jsonSchemaInput(jsonSchema);
    // A handful of schemas in practice; a bound keeps a stream of odd ones from growing memory.
    if (validators.size >= 200) validators.delete(validators.keys().next().value!);
    validators.set(key, validator);
  }
  return { validator, jsonSchema };
}

/** Throws 400 `invalid_approved_args` naming the first field the edited arguments get wrong. */
export function checkApprovedArgs(args: unknown, schemas: ArgsSchemas, toolName: string): void {
  const stray = strayKey(args, schemas.jsonSchema, []);
  if (stray) {
    const field = stray.join('.');
    throw new HeedError(
      'invalid_approved_args',
      `The edited arguments have ${JSON.stringify(clip(field, 100))}, which ${toolName} does not take.`,
      {
        details: { field, issues: [{ path: field, message: 'Not an argument of this tool.' }] },
      },
    );
  }
  const result = schemas.validator.safeParse(args);
  if (!result.success) {
    const first = result.error.issues[0];
    const field = first.path.length ? first.path.join('.') : '(the arguments)';
    throw new HeedError(
      'invalid_approved_args',
      `The edited arguments are not accepted by ${toolName}: ${field}: ${first.message}.`,
      {
        details: { field, issues: issueList(result.error.issues) },
      },
    );
  }
}

/**
 * The path of the first key of `value` that its schema does not declare: an object schema with
 * `properties` is closed unless it says otherwise (`additionalProperties` other than false, or
 * `patternProperties`). Schemas it cannot follow (`$ref`, `anyOf`…) are left to the validator.
 */
function strayKey(value: unknown, schema: unknown, path: string[]): string[] | undefined {
  if (!isPlainObject(schema)) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = strayKey(value[index], schema.items, [...path, String(index)]);
      if (found) return found;
    }
    return undefined;
  }
  if (!isPlainObject(value) || !isPlainObject(schema.properties)) return undefined;
  const properties = schema.properties;
  const open =
    (schema.additionalProperties !== undefined && schema.additionalProperties !== false) ||
    schema.patternProperties !== undefined;
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(properties, key)) {
      const found = strayKey(value[key], properties[key], [...path, key]);
      if (found) return found;
    } else if (!open) {
      return [...path, key];
    }
  }
  return undefined;
}

/** Whether two JSON values are the same (an "edit" that changes nothing is not checked, as the reference does). */
export function sameJson(a: JsonValue | unknown, b: JsonValue | unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical(value[key])]),
    );
  }
  return value;
}
