import { Validator, type OutputUnit } from '@cfworker/json-schema';
import { isPlainObject } from '../../kinds/plain-object.js';

/** One thing wrong with a value: `field` is a dotted path (`amount`, `items.0.sku`), empty for the whole. */
export interface SchemaProblem {
  field: string;
  message: string;
}

type Schema = Record<string, unknown>;

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'empty',
};

const validators = new WeakMap<Schema, Validator>();

/**
 * Checks a JSON value against the JSON Schema a tool's arguments were described with (validation by
 * @cfworker/json-schema), and says what is wrong as a sentence per field; empty when the value passes.
 */
export function checkJsonSchema(schema: Schema | undefined, value: unknown): SchemaProblem[] {
  if (!isPlainObject(schema)) return [];
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema as never, '2020-12', false);
    validators.set(schema, validator);
  }
  const { valid, errors } = validator.validate(value);
  if (valid) return [];
  // A union reports every branch's failure; say once that none of its forms fits instead.
  const unions = errors
    .filter((unit) => unit.keyword === 'anyOf' || unit.keyword === 'oneOf')
    .map((unit) => unit.keywordLocation);
  const problems: SchemaProblem[] = [];
  for (const unit of errors) {
    if (unions.some((location) => unit.keywordLocation.startsWith(`${location}/`))) continue;
    problems.push(...describe(schema, value, unit));
  }
  return problems;
}

function describe(schema: Schema, value: unknown, unit: OutputUnit): SchemaProblem[] {
  const path = pointer(unit.instanceLocation);
  const field = path.join('.');
  const limit = resolve(schema, pointer(unit.keywordLocation));
  const say = (message: string) => [{ field, message: `${field === '' ? 'The arguments' : field} ${message}.` }];
  switch (unit.keyword) {
    case 'type': {
      const types = Array.isArray(limit) ? (limit as string[]) : [String(limit)];
      return say(`must be ${types.map((type) => TYPE_WORDS[type] ?? type).join(' or ')}`);
    }
    case 'minimum':
      return say(`must be at least ${limit}`);
    case 'maximum':
      return say(`must be at most ${limit}`);
    case 'exclusiveMinimum':
      return say(`must be more than ${limit}`);
    case 'exclusiveMaximum':
      return say(`must be less than ${limit}`);
    case 'multipleOf':
      return say(`must be a multiple of ${limit}`);
    case 'minLength':
      return say(limit === 1 ? 'must not be empty' : `must be at least ${limit} characters long`);
    case 'maxLength':
      return say(`must be at most ${limit} characters long`);
    case 'pattern':
      return say(`must match the pattern ${limit}`);
    case 'minItems':
      return say(`must have at least ${limit} items`);
    case 'maxItems':
      return say(`must have at most ${limit} items`);
    case 'enum':
      return say(`must be one of ${(limit as unknown[]).map((item) => JSON.stringify(item)).join(', ')}`);
    case 'const':
      return say(`must be ${JSON.stringify(limit)}`);
    case 'anyOf':
    case 'oneOf':
      return say('does not fit any of the forms this tool accepts');
    case 'required': {
      const present = resolve(value, path);
      return (limit as string[])
        .filter((name) => !isPlainObject(present) || present[name] === undefined)
        .map((name) => {
          const missing = [...path, name].join('.');
          return { field: missing, message: `${missing} is required.` };
        });
    }
    case 'false':
      // The schema of a property that may not be there at all (additionalProperties: false).
      return [{ field, message: `${field} is not an argument of this tool.` }];
    default:
      // Summary units (properties, items, additionalProperties…) repeat what the units under them say.
      return [];
  }
}

/** `#/items/1` → ['items', '1'] (JSON Pointer, as the validator reports places). */
function pointer(location: string): string[] {
  const path = location.replace(/^#\/?/, '');
  return path === ''
    ? []
    : path.split('/').map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
}

function resolve(root: unknown, path: string[]): unknown {
  let node = root;
  for (const part of path)
    node = isPlainObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

/** A field of a flat argument form: one scalar property of an object schema. */
export interface ArgumentField {
  name: string;
  kind: 'number' | 'integer' | 'string' | 'boolean' | 'enum';
  required: boolean;
  description?: string;
  /** For `enum`. */
  choices?: Array<string | number | boolean>;
  min?: number;
  max?: number;
}

/**
 * The fields of a form for an object schema whose properties are all scalars (numbers, text, yes/no,
 * a choice); undefined when the schema needs a JSON editor instead.
 */
export function argumentFields(schema: Schema | undefined): ArgumentField[] | undefined {
  if (!schema || schema.type !== 'object' || !isPlainObject(schema.properties)) return undefined;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields: ArgumentField[] = [];
  for (const [name, raw] of Object.entries(schema.properties)) {
    if (!isPlainObject(raw)) return undefined;
    const base: Pick<ArgumentField, 'name' | 'required' | 'description'> = {
      name,
      required: required.has(name),
      ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    };
    if (Array.isArray(raw.enum) && raw.enum.every((item) => ['string', 'number', 'boolean'].includes(typeof item))) {
      fields.push({ ...base, kind: 'enum', choices: raw.enum as Array<string | number | boolean> });
      continue;
    }
    const type = raw.type;
    if (type === 'number' || type === 'integer') {
      const min = typeof raw.minimum === 'number' ? raw.minimum : undefined;
      const max = typeof raw.maximum === 'number' ? raw.maximum : undefined;
      fields.push({
        ...base,
        kind: type,
        ...(min !== undefined ? { min } : {}),
        ...(max !== undefined ? { max } : {}),
      });
    } else if (type === 'string' || type === 'boolean') {
      fields.push({ ...base, kind: type });
    } else {
      return undefined;
    }
  }
  return fields;
}
