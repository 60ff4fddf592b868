import { isPlainObject } from '../../kinds/plain-object.js';
import { argumentFields, checkJsonSchema, type ArgumentField } from '../../react/state/json-schema-check.js';

/**
 * Editing a tool call's arguments in the terminal, one field at a time, kept free of Ink. A field is
 * edited as text: numbers and booleans are read back as such, other JSON (lists, objects) as JSON,
 * and text as typed.
 */
export interface ArgumentRow {
  /** The field name; empty when the arguments are not an object (the whole value is one row). */
  name: string;
  kind?: ArgumentField['kind'];
  required: boolean;
}

/** The rows to edit: the schema's fields when it describes a flat object, else the keys the call has. */
export function argumentRows(args: unknown, schema: Record<string, unknown> | undefined): ArgumentRow[] {
  if (!isPlainObject(args)) return [{ name: '', required: true }];
  const fields = argumentFields(schema);
  if (fields) return fields.map((field) => ({ name: field.name, kind: field.kind, required: field.required }));
  return Object.keys(args).map((name) => ({ name, required: true }));
}

/** The text a field is edited as. */
export function fieldText(args: unknown, row: ArgumentRow): string {
  const value = row.name === '' ? args : isPlainObject(args) ? args[row.name] : undefined;
  if (value === undefined) return '';
  if (typeof value === 'string' && row.name !== '') return value;
  return JSON.stringify(value);
}

/** Reads an edited field back: a string field keeps the text; others are JSON when they parse, else text (the schema check then says why). */
export function parseFieldText(text: string, row: ArgumentRow): unknown {
  if (row.kind === 'string') return text;
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

/** The arguments with one field set; an empty optional field is left out. */
export function setArgument(args: unknown, row: ArgumentRow, text: string): unknown {
  if (row.name === '') return parseFieldText(text, row);
  const next: Record<string, unknown> = { ...(isPlainObject(args) ? args : {}) };
  if (text.trim() === '' && !row.required) delete next[row.name];
  else next[row.name] = parseFieldText(text, row);
  return next;
}

/** What the tool's schema says is wrong, by top-level field (empty string: the whole value). */
export function argumentProblems(schema: Record<string, unknown> | undefined, args: unknown): Record<string, string> {
  const problems: Record<string, string> = Object.create(null);
  for (const problem of checkJsonSchema(schema, args)) {
    const name = problem.field.split('.')[0] ?? '';
    problems[name] ??= problem.message;
  }
  return problems;
}

/** A 400 `invalid_approved_args` as problems by field: `details.field` names it (`(the arguments)` for the whole). */
export function serverArgumentProblem(message: string, field: string | undefined): Record<string, string> {
  const name = !field || field === '(the arguments)' ? '' : field.split('.')[0];
  return { [name]: message };
}

/** Parses what came back from `$EDITOR`: the arguments, or a sentence saying why they are not JSON. */
export function parseEdited(text: string): { ok: true; args: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, args: JSON.parse(text) };
  } catch (thrown) {
    return {
      ok: false,
      message: `The edited text is not JSON: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
    };
  }
}
