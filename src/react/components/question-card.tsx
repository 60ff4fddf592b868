import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { Question } from '../../types.js';
import type { ActionView } from '../../views.js';
import type { AnswerResult } from '../state/conversation-store.js';
import {
  allowsCustom,
  buildAnswers,
  draftProblem,
  draftProblems,
  initialDrafts,
  optionForHotkey,
  optionHotkey,
  pickOption,
  problemsFromDetails,
  questionControl,
  setCustom,
  type QuestionDraft,
  type QuestionDrafts,
} from '../state/question-form.js';
import type { ResolutionInput } from '../../actions/resolution-input.js';
import { TypedInput } from './typed-input.js';

export interface QuestionCardProps {
  /** A pending `question` action. */
  action: ActionView;
  /** Sends the answer (e.g. `useConversation().answer` bound to the action's id). */
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  /** Disables the card, e.g. while an answer is on its way. */
  busy?: boolean;
  /** Puts the keyboard focus in the card when it appears. */
  autoFocus?: boolean;
}

type Choice = 'click' | 'enter';

/**
 * Asks one or more questions, one at a time ("Question 2 of 3"), with the defaults pre-picked so
 * Enter confirms. A lone single-choice question is answered by picking an option. Each field is
 * checked with the server's own rules and shows the server's sentence beside it.
 */
export function QuestionCard({ action, onSubmit, busy = false, autoFocus = false }: QuestionCardProps) {
  const questions = action.questions ?? [];
  const [step, setStep] = useState(0);
  const [drafts, setDrafts] = useState<QuestionDrafts>(() => initialDrafts(questions));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string>();
  const [sending, setSending] = useState(false);
  const [previewed, setPreviewed] = useState<string>();
  const formRef = useRef<HTMLFormElement>(null);
  const focusOnStep = useRef(autoFocus);
  const base = useId();
  const question = questions[step];
  const total = questions.length;
  const disabled = busy || sending;

  // Focus the step's first control when the card appears (if asked) and whenever the step changes.
  useEffect(() => {
    if (!focusOnStep.current) {
      focusOnStep.current = true;
      return;
    }
    formRef.current?.querySelector<HTMLElement>('[data-step-focus="true"]')?.focus();
  }, [step]);

  if (!question) return null;
  const draft = drafts[question.id];
  const control = questionControl(question);
  const lone = total === 1 && control === 'single';
  const last = step === total - 1;
  const errorId = `${base}-error-${question.id}`;
  const promptId = `${base}-prompt-${question.id}`;

  function update(next: QuestionDraft) {
    setDrafts((current) => ({ ...current, [question.id]: next }));
    // A message already shown follows the edit, so it goes away as soon as the answer is right.
    if (problems[question.id]) {
      const problem = draftProblem(question, next);
      setProblems((current) => {
        const copy = { ...current };
        if (problem) copy[question.id] = problem;
        else delete copy[question.id];
        return copy;
      });
    }
  }

  async function send(resolution: ResolutionInput) {
    setSending(true);
    setNotice(undefined);
    const result = await onSubmit(resolution);
    setSending(false);
    if (result.ok) return;
    if (result.alreadyAnswered) {
      setNotice(`This was already ${result.alreadyAnswered.status ?? 'answered'}${result.alreadyAnswered.resolvedBy ? ` by ${result.alreadyAnswered.resolvedBy}` : ''}.`);
      return;
    }
    const fromServer = problemsFromDetails(questions, result.error.details);
    if (Object.keys(fromServer).length > 0) {
      setProblems(fromServer);
      const first = questions.findIndex((candidate) => fromServer[candidate.id]);
      if (first >= 0) setStep(first);
    } else {
      setNotice(result.error.message);
    }
  }

  function submitAll(current: QuestionDrafts) {
    const found = draftProblems(questions, current);
    if (Object.keys(found).length > 0) {
      setProblems(found);
      const first = questions.findIndex((candidate) => found[candidate.id]);
      if (first >= 0 && first !== step) setStep(first);
      else focusError();
      return;
    }
    setProblems({});
    void send({ type: 'question', answers: buildAnswers(questions, current) });
  }

  function focusError() {
    requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], [data-step-focus="true"]')?.focus());
  }

  /** Next, or submit on the last question. */
  function advance(current: QuestionDrafts = drafts) {
    if (disabled) return;
    const problem = draftProblem(question, current[question.id]);
    if (problem) {
      setProblems((existing) => ({ ...existing, [question.id]: problem }));
      focusError();
      return;
    }
    if (last) submitAll(current);
    else setStep(step + 1);
  }

  function choose(value: string, how: Choice) {
    if (disabled) return;
    const next = pickOption(question, draft, value);
    const nextDrafts = { ...drafts, [question.id]: next };
    update(next);
    if (question.multiple) return;
    if (lone) submitAll(nextDrafts);
    else if (how === 'enter') advance(nextDrafts);
  }

  function onKeyDown(event: KeyboardEvent<HTMLFormElement>) {
    if (event.altKey || event.metaKey || (event.ctrlKey && event.key !== 'Enter')) return;
    const target = event.target as HTMLElement;
    const tag = target.tagName;
    const inputType = tag === 'INPUT' ? (target as HTMLInputElement).type : '';
    const typing = tag === 'TEXTAREA' || tag === 'SELECT' || (tag === 'INPUT' && !['radio', 'checkbox', 'button'].includes(inputType));
    if (event.key === 'Enter') {
      if (tag === 'TEXTAREA' && !event.ctrlKey) return;
      if (tag === 'BUTTON' && !target.dataset.option) return;
      event.preventDefault();
      if (target.dataset.option !== undefined) {
        if (question.multiple) advance();
        else choose(target.dataset.option, 'enter');
      } else {
        advance();
      }
      return;
    }
    if (typing || event.ctrlKey || event.key.length !== 1) return;
    const option = optionForHotkey(question, event.key);
    if (option && control !== 'select') {
      event.preventDefault();
      choose(option.value, 'click');
      formRef.current?.querySelector<HTMLElement>(`[data-option="${CSS.escape(option.value)}"]`)?.focus();
    }
  }

  const preview = (question.options ?? []).find((option) => option.value === (previewed ?? draft.selected[0]))?.preview;

  return (
    <form
      ref={formRef}
      className="heed-card heed-question-card"
      aria-labelledby={`${base}-title`}
      aria-busy={disabled}
      noValidate
      onKeyDown={onKeyDown}
      onSubmit={(event) => {
        event.preventDefault();
        advance();
      }}
    >
      <div className="heed-card-head">
        <h3 id={`${base}-title`} className="heed-card-title">
          {total > 1 ? `Question ${step + 1} of ${total}` : 'Question'}
          <span className="heed-chip">{question.header}</span>
        </h3>
        {total > 1 && (
          <nav className="heed-steps" aria-label="Questions">
            {questions.map((item, index) => (
              <button
                key={item.id}
                type="button"
                className="heed-step"
                aria-current={index === step ? 'step' : undefined}
                aria-label={`Question ${index + 1}: ${item.header}${problems[item.id] ? ' (needs attention)' : ''}`}
                data-invalid={problems[item.id] ? 'true' : undefined}
                disabled={disabled}
                onClick={() => setStep(index)}
              >
                {index + 1}
              </button>
            ))}
          </nav>
        )}
      </div>
      {action.preamble && step === 0 && <p className="heed-preamble">{action.preamble}</p>}
      <p id={promptId} className="heed-prompt">
        {question.prompt}
      </p>
      {question.description && <p className="heed-description">{question.description}</p>}

      <div className={preview ? 'heed-question-body heed-with-preview' : 'heed-question-body'}>
        <div className="heed-question-fields">
          {control === 'single' || control === 'multiple' ? (
            <OptionList
              question={question}
              draft={draft}
              disabled={disabled}
              labelledBy={promptId}
              describedBy={problems[question.id] ? errorId : undefined}
              onChoose={choose}
              onPreview={setPreviewed}
            />
          ) : (
            <TypedInput
              question={question}
              draft={draft}
              control={control}
              disabled={disabled}
              labelledBy={promptId}
              errorId={problems[question.id] ? errorId : undefined}
              onChange={update}
            />
          )}
          {allowsCustom(question) && (
            <div className="heed-field heed-custom">
              <label htmlFor={`${base}-custom-${question.id}`}>{question.multiple ? 'Also (your own answer)' : 'Or type your own answer'}</label>
              <input
                id={`${base}-custom-${question.id}`}
                type="text"
                value={draft.custom}
                disabled={disabled}
                autoComplete="off"
                aria-describedby={problems[question.id] ? errorId : undefined}
                onChange={(event) => update(setCustom(question, draft, event.target.value))}
              />
            </div>
          )}
          <p id={errorId} className="heed-field-error" role="alert" hidden={!problems[question.id]}>
            {problems[question.id]}
          </p>
        </div>
        {preview && (
          <aside className="heed-preview" aria-label="Preview of the option">
            <pre>{preview}</pre>
          </aside>
        )}
      </div>

      {notice && (
        <p className="heed-notice" role="alert">
          {notice}
        </p>
      )}
      <div className="heed-actions">
        {total > 1 && (
          <button type="button" className="heed-button" disabled={disabled || step === 0} onClick={() => setStep(step - 1)}>
            Back
          </button>
        )}
        {!lone && (
          <button type="submit" className="heed-button heed-primary" disabled={disabled}>
            {last ? (total > 1 ? 'Submit answers' : 'Submit') : 'Next'}
          </button>
        )}
        {lone && allowsCustom(question) && draft.custom.trim() !== '' && (
          <button type="submit" className="heed-button heed-primary" disabled={disabled}>
            Submit
          </button>
        )}
        <span className="heed-spacer" />
        <button
          type="button"
          className="heed-button heed-quiet"
          disabled={disabled}
          title="Carry on with the pre-picked answers"
          onClick={() => void send({ type: 'question', skip: true })}
        >
          Skip
        </button>
        <button
          type="button"
          className="heed-button heed-quiet"
          disabled={disabled}
          title="Decline to answer; the agent stops this turn"
          onClick={() => void send({ type: 'question', dismiss: true })}
        >
          Dismiss
        </button>
      </div>
      <p className="heed-hint" aria-hidden="true">
        {hint(question, lone)}
      </p>
    </form>
  );
}

function hint(question: Question, lone: boolean): string {
  if (question.options?.length && questionControl(question) !== 'select') {
    const pick = question.multiple ? 'Space or a number toggles an option' : lone ? 'Click, Enter or a number answers' : 'Space or a number picks';
    return `${pick} · Enter confirms`;
  }
  return question.input?.type === 'textarea' ? 'Ctrl+Enter confirms' : 'Enter confirms';
}

interface OptionListProps {
  question: Question;
  draft: QuestionDraft;
  disabled: boolean;
  labelledBy: string;
  describedBy?: string;
  onChoose: (value: string, how: Choice) => void;
  onPreview: (value: string | undefined) => void;
}

/** Options as radio or checkbox buttons, one tab stop, arrow keys move between them. */
function OptionList({ question, draft, disabled, labelledBy, describedBy, onChoose, onPreview }: OptionListProps) {
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
      event.key === 'Home' ? 0 : event.key === 'End' ? buttons.length - 1 : (current + (step ?? 0) + buttons.length) % buttons.length;
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
