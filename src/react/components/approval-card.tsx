import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ResolutionInput } from '../../actions/resolution-input.js';
import type { ActionView } from '../../views.js';
import type { AnswerResult } from '../state/conversation-store.js';
import { argumentFields, checkJsonSchema, type ArgumentField, type SchemaProblem } from '../state/json-schema-check.js';

export interface ApprovalCardProps {
  /** A pending `approval` action. */
  action: ActionView;
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  busy?: boolean;
  autoFocus?: boolean;
}

type Args = Record<string, unknown>;

const isObject = (value: unknown): value is Args => typeof value === 'object' && value !== null && !Array.isArray(value);

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

/**
 * Asks whether a tool may run: its name, title, summary and arguments. The arguments can be edited
 * (checked against the tool's schema before anything is sent), with a comment, and an approval can
 * be remembered for the rest of the conversation.
 */
export function ApprovalCard({ action, onSubmit, busy = false, autoFocus = false }: ApprovalCardProps) {
  const base = useId();
  const original = action.args;
  const fields = useMemo(() => (isObject(original) ? argumentFields(action.argsSchema) : undefined), [action.argsSchema, original]);
  const [editing, setEditing] = useState(false);
  const [asJson, setAsJson] = useState(!fields);
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries((fields ?? []).map((field) => [field.name, fieldText(field, isObject(original) ? original[field.name] : undefined)])),
  );
  const [json, setJson] = useState(() => JSON.stringify(original ?? {}, null, 2));
  const [comment, setComment] = useState('');
  const [remember, setRemember] = useState(false);
  const [serverProblem, setServerProblem] = useState<SchemaProblem>();
  const [notice, setNotice] = useState<string>();
  const [sending, setSending] = useState(false);
  const rootRef = useRef<HTMLElement>(null);
  const disabled = busy || sending;

  useEffect(() => {
    // The card itself takes the focus, not Allow: a stray Enter must not approve anything.
    if (autoFocus) rootRef.current?.focus();
    // Only when the card appears.
  }, []);

  // The arguments as edited: from the form fields, or parsed from the JSON text.
  const edited = useMemo((): { value?: unknown; parseError?: string } => {
    if (!editing) return { value: original };
    if (asJson || !fields) {
      try {
        return { value: JSON.parse(json) };
      } catch (thrown) {
        return { parseError: `The arguments are not valid JSON: ${thrown instanceof Error ? thrown.message : String(thrown)}` };
      }
    }
    const value: Args = { ...(isObject(original) ? original : {}) };
    for (const field of fields) {
      const next = fieldValue(field, texts[field.name] ?? '');
      if (next === undefined) delete value[field.name];
      else value[field.name] = next;
    }
    return { value };
  }, [editing, asJson, fields, json, texts, original]);

  const problems = useMemo<SchemaProblem[]>(() => {
    if (edited.parseError) return [{ field: '', message: edited.parseError }];
    const found = editing ? checkJsonSchema(action.argsSchema, edited.value) : [];
    return serverProblem && !found.length ? [serverProblem] : found;
  }, [edited, editing, action.argsSchema, serverProblem]);
  const changed = editing && !edited.parseError && JSON.stringify(edited.value) !== JSON.stringify(original);
  const problemFor = (name: string) => problems.find((problem) => problem.field === name || problem.field.startsWith(`${name}.`));
  const loose = problems.filter((problem) => asJson || !fields || !fields.some((field) => problemFor(field.name) === problem));

  function switchToJson(next: boolean) {
    // Carry what was typed across, so switching never loses an edit.
    if (next && !edited.parseError) setJson(JSON.stringify(edited.value ?? {}, null, 2));
    if (!next && fields && !edited.parseError && isObject(edited.value)) {
      const value = edited.value;
      setTexts(Object.fromEntries(fields.map((field) => [field.name, fieldText(field, value[field.name])])));
    }
    setAsJson(next);
  }

  async function decide(decision: 'allow' | 'deny') {
    if (decision === 'allow' && problems.length > 0) return;
    setSending(true);
    setNotice(undefined);
    setServerProblem(undefined);
    const resolution: ResolutionInput = {
      type: 'approval',
      decision,
      ...(comment.trim() ? { comment: comment.trim() } : {}),
      ...(decision === 'allow' && changed ? { approvedArgs: edited.value as Record<string, unknown> } : {}),
      ...(decision === 'allow' && remember ? { remember: true } : {}),
    };
    const result = await onSubmit(resolution);
    setSending(false);
    if (result.ok) return;
    if (result.alreadyAnswered) {
      setNotice(`This was already ${result.alreadyAnswered.status ?? 'answered'}${result.alreadyAnswered.resolvedBy ? ` by ${result.alreadyAnswered.resolvedBy}` : ''}.`);
    } else if (result.error.code === 'invalid_approved_args') {
      const field = typeof result.error.details?.field === 'string' ? result.error.details.field : '';
      setServerProblem({ field: field === '(the arguments)' ? '' : field, message: result.error.message });
      setEditing(true);
    } else {
      setNotice(result.error.message);
    }
  }

  const hasProblems = problems.length > 0;
  return (
    <section ref={rootRef} tabIndex={-1} className="heed-card heed-approval-card" aria-labelledby={`${base}-title`} aria-busy={disabled}>
      <div className="heed-card-head">
        <h3 id={`${base}-title`} className="heed-card-title">
          {action.title || `Run ${action.toolName}?`}
        </h3>
        <span className="heed-chip heed-tool-name" title="Tool">
          {action.toolName}
        </span>
      </div>
      {action.summary && <p className="heed-description">{action.summary}</p>}

      {!editing ? (
        <ArgumentsView value={original} />
      ) : (
        <div className="heed-args-editor" role="group" aria-label="Edit the arguments">
          {fields && !asJson ? (
            fields.map((field) => (
              <ArgumentInput
                key={field.name}
                field={field}
                id={`${base}-arg-${field.name}`}
                text={texts[field.name] ?? ''}
                problem={problemFor(field.name)?.message}
                disabled={disabled}
                onChange={(text) => {
                  setServerProblem(undefined);
                  setTexts((current) => ({ ...current, [field.name]: text }));
                }}
              />
            ))
          ) : (
            <div className="heed-field">
              <label htmlFor={`${base}-json`}>Arguments (JSON)</label>
              <textarea
                id={`${base}-json`}
                className="heed-code"
                rows={Math.min(14, Math.max(4, json.split('\n').length + 1))}
                value={json}
                spellCheck={false}
                disabled={disabled}
                aria-invalid={hasProblems || undefined}
                aria-describedby={hasProblems ? `${base}-problems` : undefined}
                onChange={(event) => {
                  setServerProblem(undefined);
                  setJson(event.target.value);
                }}
              />
            </div>
          )}
          {loose.length > 0 && (
            <ul id={`${base}-problems`} className="heed-field-error" role="alert">
              {loose.map((problem) => (
                <li key={`${problem.field}:${problem.message}`}>{problem.message}</li>
              ))}
            </ul>
          )}
          {fields && (
            <button type="button" className="heed-link" disabled={disabled} onClick={() => switchToJson(!asJson)}>
              {asJson ? 'Edit as a form' : 'Edit as JSON'}
            </button>
          )}
        </div>
      )}

      <div className="heed-field">
        <label htmlFor={`${base}-comment`}>Comment (optional)</label>
        <textarea
          id={`${base}-comment`}
          rows={2}
          value={comment}
          disabled={disabled}
          placeholder="The agent reads this with your decision"
          onChange={(event) => setComment(event.target.value)}
        />
      </div>
      {action.canRemember && (
        <label className="heed-check">
          <input type="checkbox" checked={remember} disabled={disabled} onChange={(event) => setRemember(event.target.checked)} />
          Don&apos;t ask again in this chat for {action.toolName}
        </label>
      )}
      {notice && (
        <p className="heed-notice" role="alert">
          {notice}
        </p>
      )}
      <div className="heed-actions">
        <button
          type="button"
          className="heed-button heed-primary"
          disabled={disabled || hasProblems}
          onClick={() => void decide('allow')}
        >
          {changed ? 'Allow with changes' : 'Allow'}
        </button>
        <button type="button" className="heed-button heed-danger" disabled={disabled} onClick={() => void decide('deny')}>
          Deny
        </button>
        <span className="heed-spacer" />
        <button
          type="button"
          className="heed-button heed-quiet"
          aria-expanded={editing}
          disabled={disabled}
          onClick={() => {
            setEditing(!editing);
            setServerProblem(undefined);
          }}
        >
          {editing ? 'Keep the original arguments' : 'Edit arguments'}
        </button>
      </div>
    </section>
  );
}

/** Arguments as a list of names and values (or JSON when they are not an object). */
export function ArgumentsView({ value }: { value: unknown }) {
  if (!isObject(value)) return <pre className="heed-code">{JSON.stringify(value, null, 2)}</pre>;
  const entries = Object.entries(value);
  if (entries.length === 0) return <p className="heed-description">No arguments.</p>;
  return (
    <dl className="heed-args">
      {entries.map(([name, item]) => (
        <div key={name} className="heed-arg">
          <dt>{name}</dt>
          <dd>
            <code>{typeof item === 'string' ? item : JSON.stringify(item)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function ArgumentInput({
  field,
  id,
  text,
  problem,
  disabled,
  onChange,
}: {
  field: ArgumentField;
  id: string;
  text: string;
  problem?: string;
  disabled: boolean;
  onChange: (text: string) => void;
}) {
  const errorId = `${id}-error`;
  const describedBy = [field.description ? `${id}-hint` : '', problem ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const shared = { id, disabled, 'aria-invalid': problem ? true : undefined, 'aria-describedby': describedBy } as const;
  let control;
  if (field.kind === 'boolean') {
    control = <input {...shared} type="checkbox" checked={text === 'true'} onChange={(event) => onChange(event.target.checked ? 'true' : 'false')} />;
  } else if (field.kind === 'enum') {
    control = (
      <select {...shared} value={text === '' ? '-1' : text} onChange={(event) => onChange(event.target.value)}>
        {!field.required && <option value="-1">(none)</option>}
        {(field.choices ?? []).map((choice, index) => (
          <option key={String(choice)} value={String(index)}>
            {String(choice)}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === 'number' || field.kind === 'integer') {
    control = (
      <input
        {...shared}
        type="number"
        inputMode="decimal"
        step={field.kind === 'integer' ? 1 : 'any'}
        min={field.min}
        max={field.max}
        value={text}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  } else {
    control = <input {...shared} type="text" value={text} onChange={(event) => onChange(event.target.value)} />;
  }
  return (
    <div className={field.kind === 'boolean' ? 'heed-field heed-field-inline' : 'heed-field'}>
      <label htmlFor={id}>
        {field.name}
        {field.required ? '' : ' (optional)'}
      </label>
      {control}
      {field.description && (
        <span id={`${id}-hint`} className="heed-hint">
          {field.description}
        </span>
      )}
      {problem && (
        <span id={errorId} className="heed-field-error" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}
