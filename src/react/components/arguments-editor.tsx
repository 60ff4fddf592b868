import type { ArgumentField } from '../state/json-schema-check.js';
import type { ArgumentsEditor } from './use-arguments-editor.js';

/** The approval's arguments being edited: a field per argument, or the JSON text, and what is wrong with them. */
export function EditArguments({
  editor,
  base,
  disabled,
}: {
  editor: ArgumentsEditor;
  base: string;
  disabled: boolean;
}) {
  const hasProblems = editor.problems.length > 0;
  return (
    <div className="heed-args-editor" role="group" aria-label="Edit the arguments">
      {editor.fields && !editor.asJson ? (
        editor.fields.map((field) => (
          <ArgumentInput
            key={field.name}
            field={field}
            id={`${base}-arg-${field.name}`}
            text={editor.texts[field.name] ?? ''}
            problem={editor.problemFor(field.name)?.message}
            disabled={disabled}
            onChange={(text) => editor.setText(field.name, text)}
          />
        ))
      ) : (
        <div className="heed-field">
          <label htmlFor={`${base}-json`}>Arguments (JSON)</label>
          <textarea
            id={`${base}-json`}
            className="heed-code"
            rows={Math.min(14, Math.max(4, editor.json.split('\n').length + 1))}
            value={editor.json}
            spellCheck={false}
            disabled={disabled}
            aria-invalid={hasProblems || undefined}
            aria-describedby={hasProblems ? `${base}-problems` : undefined}
            onChange={(event) => editor.setJson(event.target.value)}
          />
        </div>
      )}
      {editor.loose.length > 0 && (
        <ul id={`${base}-problems`} className="heed-field-error" role="alert">
          {editor.loose.map((problem) => (
            <li key={`${problem.field}:${problem.message}`}>{problem.message}</li>
          ))}
        </ul>
      )}
      {editor.fields && (
        <button
          type="button"
          className="heed-link"
          disabled={disabled}
          onClick={() => editor.switchToJson(!editor.asJson)}
        >
          {editor.asJson ? 'Edit as a form' : 'Edit as JSON'}
        </button>
      )}
    </div>
  );
}

/** One argument's field: a check box, a list of choices, a number or text, with its hint and problem. */
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
  const describedBy =
    [field.description ? `${id}-hint` : '', problem ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const shared = { id, disabled, 'aria-invalid': problem ? true : undefined, 'aria-describedby': describedBy } as const;
  let control;
  if (field.kind === 'boolean') {
    control = (
      <input
        {...shared}
        type="checkbox"
        checked={text === 'true'}
        onChange={(event) => onChange(event.target.checked ? 'true' : 'false')}
      />
    );
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
