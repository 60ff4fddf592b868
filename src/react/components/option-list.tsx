import type { KeyboardEvent } from 'react';
import type { Question } from '../../types.js';
import { optionHotkey, type QuestionDraft } from '../../client/question-drafts.js';
import type { Choice } from './use-question-form.js';

export interface OptionListProps {
  question: Question;
  draft: QuestionDraft;
  disabled: boolean;
  labelledBy: string;
  describedBy?: string;
  onChoose: (value: string, how: Choice) => void;
  onPreview: (value: string | undefined) => void;
}

/** Options as radio or checkbox buttons, one tab stop, arrow keys move between them. */
export function OptionList({
  question,
  draft,
  disabled,
  labelledBy,
  describedBy,
  onChoose,
  onPreview,
}: OptionListProps) {
  const options = question.options ?? [];
  const role = question.multiple ? 'checkbox' : 'radio';
  const focusIndex = Math.max(
    0,
    options.findIndex((option) => draft.selected.includes(option.value)),
  );

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
    if (step === undefined && event.key !== 'Home' && event.key !== 'End') return;
    const buttons = Array.from(event.currentTarget.querySelectorAll<HTMLButtonElement>('[data-option]'));
    const current = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next =
      event.key === 'Home'
        ? 0
        : event.key === 'End'
          ? buttons.length - 1
          : (current + (step ?? 0) + buttons.length) % buttons.length;
    event.preventDefault();
    buttons[next]?.focus();
  }

  return (
    <div
      className="heed-options"
      role={question.multiple ? 'group' : 'radiogroup'}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      onKeyDown={onKeyDown}
      onMouseLeave={() => onPreview(undefined)}
    >
      {options.map((option, index) => {
        const checked = draft.selected.includes(option.value);
        const hotkey = optionHotkey(question, index);
        return (
          <button
            key={option.value}
            type="button"
            role={role}
            aria-checked={checked}
            className="heed-option"
            data-option={option.value}
            data-step-focus={index === focusIndex ? 'true' : undefined}
            tabIndex={index === focusIndex ? 0 : -1}
            disabled={disabled}
            aria-keyshortcuts={hotkey}
            onClick={() => onChoose(option.value, 'click')}
            onFocus={() => onPreview(option.value)}
            onMouseEnter={() => onPreview(option.value)}
          >
            <span className="heed-option-mark" aria-hidden="true" />
            <span className="heed-option-text">
              <span className="heed-option-label">{option.label}</span>
              {option.description && <span className="heed-option-description">{option.description}</span>}
            </span>
            {hotkey && (
              <kbd className="heed-hotkey" aria-hidden="true">
                {hotkey}
              </kbd>
            )}
          </button>
        );
      })}
    </div>
  );
}
