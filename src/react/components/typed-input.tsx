import { useId, type FocusEvent, type KeyboardEvent } from 'react';
import { MAX_ANSWER_LENGTH } from '../../kinds/question/coerce.js';
import type { Question } from '../../types.js';
import type { QuestionControl, QuestionDraft } from '../../client/question-drafts.js';

export interface TypedInputProps {
  question: Question;
  draft: QuestionDraft;
  control: QuestionControl;
  disabled: boolean;
  /** Id of the element that says what is asked (the prompt). */
  labelledBy: string;
  /** Id of the error message when one is shown. */
  errorId?: string;
  /**
   * The field still shows its default, untouched: the first key typed replaces it (as in the terminal
   * inbox), instead of being added to it (a pre-filled 2 and then "15" gave 215).
   */
  pristine?: boolean;
  onChange: (draft: QuestionDraft) => void;
}

/** Controls whose whole value a first key replaces while it is the untouched default. */
const REPLACED_BY_TYPING = new Set<QuestionControl>(['number', 'text', 'email', 'url']);

/** The control a typed question needs: number, date, email, url, yes/no, a text area, a list to pick from, or text. */
export function TypedInput({
  question,
  draft,
  control,
  disabled,
  labelledBy,
  errorId,
  pristine = false,
  onChange,
}: TypedInputProps) {
  const id = useId();
  const input = question.input;
  const common = {
    id,
    disabled,
    'aria-labelledby': labelledBy,
    'aria-invalid': errorId ? true : undefined,
    'aria-describedby': errorId,
    'aria-required': input?.required || undefined,
    'data-step-focus': 'true',
  } as const;
  const setText = (text: string) => onChange({ ...draft, text });
  const replacing = pristine && draft.text !== '' && REPLACED_BY_TYPING.has(control);
  // Selected on focus, so any way of typing (a phone's keyboard too) replaces it; a key pressed where a
  // click put the caret replaces it as well.
  const replaceDefault = replacing
    ? {
        onFocus: (event: FocusEvent<HTMLInputElement>) => event.currentTarget.select(),
        onKeyDown: (event: KeyboardEvent<HTMLInputElement>) => {
          if (event.key.length !== 1 || event.ctrlKey || event.metaKey || event.altKey || event.nativeEvent.isComposing)
            return;
          event.preventDefault();
          setText(event.key);
        },
      }
    : {};
  const setSelected = (value: string) => onChange({ ...draft, selected: value ? [value] : [], custom: '' });

  switch (control) {
    case 'boolean':
      return (
        <div className="heed-boolean" role="radiogroup" aria-labelledby={labelledBy} aria-describedby={errorId}>
          {(['true', 'false'] as const).map((value, index) => (
            <label key={value} className="heed-boolean-choice">
              <input
                type="radio"
                name={id}
                value={value}
                checked={draft.text === value}
                disabled={disabled}
                data-step-focus={draft.text === value || (draft.text === '' && index === 0) ? 'true' : undefined}
                onChange={() => setText(value)}
              />
              {value === 'true' ? 'Yes' : 'No'}
            </label>
          ))}
        </div>
      );
    case 'select':
      return (
        <select {...common} value={draft.selected[0] ?? ''} onChange={(event) => setSelected(event.target.value)}>
          <option value="">{input?.placeholder ?? 'Choose…'}</option>
          {(question.options ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    case 'textarea':
      return (
        <textarea
          {...common}
          rows={4}
          value={draft.text}
          placeholder={input?.placeholder}
          maxLength={typeof input?.max === 'number' ? input.max : MAX_ANSWER_LENGTH}
          onChange={(event) => setText(event.target.value)}
        />
      );
    case 'number':
      return (
        <input
          {...common}
          {...replaceDefault}
          type="number"
          inputMode="decimal"
          step="any"
          min={typeof input?.min === 'number' ? input.min : undefined}
          max={typeof input?.max === 'number' ? input.max : undefined}
          value={draft.text}
          placeholder={input?.placeholder}
          onChange={(event) => setText(event.target.value)}
        />
      );
    case 'date':
      return (
        <input
          {...common}
          type="date"
          min={typeof input?.min === 'string' ? input.min : undefined}
          max={typeof input?.max === 'string' ? input.max : undefined}
          value={draft.text}
          onChange={(event) => setText(event.target.value)}
        />
      );
    default:
      return (
        <input
          {...common}
          {...replaceDefault}
          type={control === 'email' ? 'email' : control === 'url' ? 'url' : 'text'}
          autoComplete={control === 'email' ? 'email' : 'off'}
          maxLength={typeof input?.max === 'number' ? input.max : MAX_ANSWER_LENGTH}
          value={draft.text}
          placeholder={input?.placeholder}
          onChange={(event) => setText(event.target.value)}
        />
      );
  }
}
