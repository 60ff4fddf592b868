import { useMemo, useState } from 'react';
import { isPlainObject } from '../../kinds/plain-object.js';
import type { ApprovalActionView } from '../../views.js';
import { argumentFields, checkJsonSchema, type ArgumentField, type SchemaProblem } from '../state/json-schema-check.js';

type Args = Record<string, unknown>;

/** A field's text as typed, from the value it holds. */
function fieldText(field: ArgumentField, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field.kind === 'enum') return String((field.choices ?? []).findIndex((choice) => choice === value));
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The value a field's text stands for; text that is not a number stays text, so the schema says what is wrong. */
function fieldValue(field: ArgumentField, text: string): unknown {
  if (field.kind === 'boolean') return text === 'true';
  if (field.kind === 'enum') return text === '' || text === '-1' ? undefined : field.choices?.[Number(text)];
  if (text.trim() === '') return field.kind === 'string' && field.required ? '' : undefined;
  if (field.kind === 'number' || field.kind === 'integer') {
    const number = Number(text);
    return Number.isFinite(number) ? number : text;
  }
  return text;
}

/** The arguments as edited: from the form's fields, or (without fields) parsed from the JSON text. */
function editedArguments(
  original: unknown,
  fields: ArgumentField[] | undefined,
  texts: Record<string, string>,
  json: string,
): { value?: unknown; parseError?: string } {
  if (!fields) {
    try {
      return { value: JSON.parse(json) };
    } catch (thrown) {
      return {
        parseError: `The arguments are not valid JSON: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
      };
    }
  }
  const value: Args = { ...(isPlainObject(original) ? original : {}) };
  for (const field of fields) {
    const next = fieldValue(field, texts[field.name] ?? '');
    if (next === undefined) delete value[field.name];
    else value[field.name] = next;
  }
  return { value };
}

/** The arguments of an approval as the person edits them: a form from the tool's schema, or JSON. */
export interface ArgumentsEditor {
  editing: boolean;
  /** The form's fields, or undefined when the arguments are edited as JSON only. */
  fields?: ArgumentField[];
  asJson: boolean;
  texts: Record<string, string>;
  json: string;
  /** The arguments as edited (the original ones while not editing). */
  value?: unknown;
  /** True when the edited arguments differ from the original ones. */
  changed: boolean;
  /** What is wrong with the edited arguments (the schema's findings, or the server's). */
  problems: SchemaProblem[];
  /** The problem shown beside a field. */
  problemFor(name: string): SchemaProblem | undefined;
  /** The problems not shown beside a field, listed under the editor. */
  loose: SchemaProblem[];
  setText(name: string, text: string): void;
  setJson(text: string): void;
  switchToJson(next: boolean): void;
  /** Starts or stops editing (stopping keeps the original arguments). */
  toggle(): void;
  /** Shows the server's refusal of the edited arguments, and opens the editor on them. */
  showServerProblem(problem: SchemaProblem | undefined): void;
}

export function useArgumentsEditor(action: ApprovalActionView): ArgumentsEditor {
  const original = action.args;
  const fields = useMemo(
    () => (isPlainObject(original) ? argumentFields(action.argsSchema) : undefined),
    [action.argsSchema, original],
  );
  const [editing, setEditing] = useState(false);
  const [asJson, setAsJson] = useState(!fields);
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      (fields ?? []).map((field) => [
        field.name,
        fieldText(field, isPlainObject(original) ? original[field.name] : undefined),
      ]),
    ),
  );
  const [json, setJson] = useState(() => JSON.stringify(original ?? {}, null, 2));
  const [serverProblem, setServerProblem] = useState<SchemaProblem>();

  const edited = useMemo(
    () =>
      editing ? editedArguments(original, asJson || !fields ? undefined : fields, texts, json) : { value: original },
    [editing, asJson, fields, json, texts, original],
  );

  const problems = useMemo<SchemaProblem[]>(() => {
    if (edited.parseError) return [{ field: '', message: edited.parseError }];
    const found = editing ? checkJsonSchema(action.argsSchema, edited.value) : [];
    return serverProblem && !found.length ? [serverProblem] : found;
  }, [edited, editing, action.argsSchema, serverProblem]);
  const problemFor = (name: string) =>
    problems.find((problem) => problem.field === name || problem.field.startsWith(`${name}.`));

  function switchToJson(next: boolean) {
    // Carry what was typed across, so switching never loses an edit.
    if (next && !edited.parseError) setJson(JSON.stringify(edited.value ?? {}, null, 2));
    if (!next && fields && !edited.parseError && isPlainObject(edited.value)) {
      const value = edited.value;
      setTexts(Object.fromEntries(fields.map((field) => [field.name, fieldText(field, value[field.name])])));
    }
    setAsJson(next);
  }

  return {
    editing,
    fields,
    asJson,
    texts,
    json,
    value: edited.value,
    changed: editing && !edited.parseError && JSON.stringify(edited.value) !== JSON.stringify(original),
    problems,
    problemFor,
    loose: problems.filter(
      (problem) => asJson || !fields || !fields.some((field) => problemFor(field.name) === problem),
    ),
    setText(name, text) {
      setServerProblem(undefined);
      setTexts((current) => ({ ...current, [name]: text }));
    },
    setJson(text) {
      setServerProblem(undefined);
      setJson(text);
    },
    switchToJson,
    toggle() {
      setEditing(!editing);
      setServerProblem(undefined);
    },
    showServerProblem(problem) {
      setServerProblem(problem);
      if (problem) setEditing(true);
    },
  };
}
