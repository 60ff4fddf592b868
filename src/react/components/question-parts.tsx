import type { Question } from '../../types.js';
import { allowsCustom, optionHotkey, questionControl, setCustom } from '../../client/question-drafts.js';
import { OptionList } from './option-list.js';
import { TypedInput } from './typed-input.js';
import type { QuestionForm } from './use-question-form.js';

/** "Question 2 of 3" with the question's header, and a button per question to go back to it. */
export function QuestionHead({ form, titleId }: { form: QuestionForm; titleId: string }) {
  const { questions, question, step, total, problems, disabled } = form;
  return (
    <div className="heed-card-head">
      <h3 id={titleId} className="heed-card-title">
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
              onClick={() => form.setStep(index)}
            >
              {index + 1}
            </button>
          ))}
        </nav>
      )}
    </div>
  );
}

/** The step's answer: options or a typed field, a field for the person's own answer, the problem, a preview. */
export function QuestionBody({ form, base, promptId }: { form: QuestionForm; base: string; promptId: string }) {
  const { question, draft, control, disabled } = form;
  const problem = form.problems[question.id];
  const errorId = `${base}-error-${question.id}`;
  const preview = (question.options ?? []).find(
    (option) => option.value === (form.previewed ?? draft.selected[0]),
  )?.preview;
  return (
    <div className={preview ? 'heed-question-body heed-with-preview' : 'heed-question-body'}>
      <div className="heed-question-fields">
        {control === 'single' || control === 'multiple' ? (
          <OptionList
            question={question}
            draft={draft}
            disabled={disabled}
            labelledBy={promptId}
            describedBy={problem ? errorId : undefined}
            onChoose={form.choose}
            onPreview={form.setPreviewed}
          />
        ) : (
          <TypedInput
            question={question}
            draft={draft}
            control={control}
            disabled={disabled}
            labelledBy={promptId}
            errorId={problem ? errorId : undefined}
            pristine={!form.field.touched}
            onChange={form.update}
          />
        )}
        {allowsCustom(question) && (
          <div className="heed-field heed-custom">
            <label htmlFor={`${base}-custom-${question.id}`}>
              {question.multiple ? 'Also (your own answer)' : 'Or type your own answer'}
            </label>
            <input
              id={`${base}-custom-${question.id}`}
              type="text"
              value={draft.custom}
              disabled={disabled}
              autoComplete="off"
              aria-describedby={problem ? errorId : undefined}
              onChange={(event) => form.update(setCustom(question, draft, event.target.value))}
            />
          </div>
        )}
        <p id={errorId} className="heed-field-error" role="alert" hidden={!problem}>
          {problem}
        </p>
      </div>
      {preview && (
        <aside className="heed-preview" aria-label="Preview of the option">
          <pre>{preview}</pre>
        </aside>
      )}
    </div>
  );
}

/** Back, Next or Submit, Skip and Dismiss. */
export function QuestionActions({ form }: { form: QuestionForm }) {
  const { question, step, total, lone, last, draft, disabled } = form;
  return (
    <div className="heed-actions">
      {total > 1 && (
        <button
          type="button"
          className="heed-button"
          disabled={disabled || step === 0}
          onClick={() => form.setStep(step - 1)}
        >
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
        onClick={() => void form.send({ type: 'question', skip: true })}
      >
        Skip
      </button>
      <button
        type="button"
        className="heed-button heed-quiet"
        disabled={disabled}
        title="Decline to answer; the agent stops this turn"
        onClick={() => void form.send({ type: 'question', dismiss: true })}
      >
        Dismiss
      </button>
    </div>
  );
}

/** The keys the step answers to, in a line under the buttons. */
export function questionHint(question: Question, lone: boolean): string {
  if (question.options?.length && questionControl(question) !== 'select') {
    // Options with keys of their own (seed 003's hotkeys) are picked with those, not with numbers.
    const keys = question.options.map((_, index) => optionHotkey(question, index)).filter((key) => key !== undefined);
    const key = keys.every((candidate) => /^[0-9]$/.test(candidate)) ? 'a number' : "an option's key";
    const pick = question.multiple
      ? `Space or ${key} toggles an option`
      : lone
        ? `Click, Enter or ${key} answers`
        : `Space or ${key} picks`;
    return `${pick} · Enter confirms`;
  }
  return question.input?.type === 'textarea' ? 'Ctrl+Enter confirms' : 'Enter confirms';
}
