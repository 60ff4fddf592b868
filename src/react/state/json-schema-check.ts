/** One thing wrong with a value: `field` is a dotted path (`amount`, `items.0.sku`), empty for the whole. */
export interface SchemaProblem {
  field: string;
  message: string;
}

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'empty',
};

function subject(field: string): string {
  return field === '' ? 'The arguments' : field;
}

/**
 * Checks a JSON value against the JSON Schema a tool's arguments were described with (the subset
 * zod produces: types, enums, bounds, lengths, patterns, required and extra properties, items,
 * anyOf/oneOf). Returns every problem, as a sentence naming the field; empty when the value passes.
 */
export function checkJsonSchema(schema: Schema | undefined, value: unknown, field = ''): SchemaProblem[] {
  if (!schema || typeof schema !== 'object') return [];
  const problems: SchemaProblem[] = [];
  const say = (message: string) => problems.push({ field, message: `${subject(field)} ${message}.` });

  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const results = branches.map((branch) => checkJsonSchema(branch as Schema, value, field));
      if (!results.some((result) => result.length === 0)) {
        // The closest branch says the most useful thing.
        problems.push(...results.sort((a, b) => a.length - b.length)[0]);
        return problems;
      }
    }
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) problems.push(...checkJsonSchema(part as Schema, value, field));

  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    say(`must be ${JSON.stringify(schema.const)}`);
    return problems;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((item) => JSON.stringify(item) === JSON.stringify(value))) {
    say(`must be one of ${schema.enum.map((item) => JSON.stringify(item)).join(', ')}`);
    return problems;
  }
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];
  if (types.length > 0 && !types.some((type) => matchesType(value, type))) {
    say(`must be ${types.map((type) => TYPE_WORDS[type] ?? type).join(' or ')}`);
    return problems;
  }

  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) say(`must be at least ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) say(`must be at most ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) say(`must be more than ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) say(`must be less than ${schema.exclusiveMaximum}`);
    if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 && Math.abs(value / schema.multipleOf - Math.round(value / schema.multipleOf)) > 1e-9) {
      say(`must be a multiple of ${schema.multipleOf}`);
    }
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) {
      say(schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters long`);
    }
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) say(`must be at most ${schema.maxLength} characters long`);
    if (typeof schema.pattern === 'string') {
      let pattern: RegExp | undefined;
      try {
        pattern = new RegExp(schema.pattern, 'u');
      } catch {
        pattern = undefined;
      }
      if (pattern && !pattern.test(value)) say(`must match the pattern ${schema.pattern}`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) say(`must have at least ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) say(`must have at most ${schema.maxItems} items`);
    if (isObject(schema.items)) {
      value.forEach((item, index) => problems.push(...checkJsonSchema(schema.items as Schema, item, join(field, String(index)))));
    }
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    for (const name of required) {
      if (!Object.hasOwn(value, name) || value[name] === undefined) {
        problems.push({ field: join(field, name), message: `${join(field, name)} is required.` });
      }
    }
    for (const [name, item] of Object.entries(value)) {
      if (item === undefined) continue;
      if (Object.hasOwn(properties, name)) {
        problems.push(...checkJsonSchema(properties[name] as Schema, item, join(field, name)));
      } else if (schema.additionalProperties === false) {
        problems.push({ field: join(field, name), message: `${join(field, name)} is not an argument of this tool.` });
      } else if (isObject(schema.additionalProperties)) {
        problems.push(...checkJsonSchema(schema.additionalProperties, item, join(field, name)));
      }
    }
  }
  return problems;
}

function join(base: string, name: string): string {
  return base === '' ? name : `${base}.${name}`;
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
  if (!schema || schema.type !== 'object' || !isObject(schema.properties)) return undefined;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields: ArgumentField[] = [];
  for (const [name, raw] of Object.entries(schema.properties)) {
    if (!isObject(raw)) return undefined;
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
      fields.push({ ...base, kind: type, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) });
    } else if (type === 'string' || type === 'boolean') {
      fields.push({ ...base, kind: type });
    } else {
      return undefined;
    }
  }
  return fields;
}
