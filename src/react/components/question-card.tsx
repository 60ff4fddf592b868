import { useId, type KeyboardEvent } from 'react';
import type { QuestionActionView } from '../../views.js';
import type { AnswerResult } from '../state/conversation-store.js';
import { optionForHotkey } from '../../client/question-drafts.js';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import { AnswerNotice } from './answer-notice.js';
import { QuestionActions, QuestionBody, QuestionHead, questionHint } from './question-parts.js';
import { useQuestionForm, type QuestionForm } from './use-question-form.js';

export interface QuestionCardProps {
  /** A pending `question` action. */
  action: QuestionActionView;
  /** Sends the answer (e.g. `useConversation().answer` bound to the action's id). */
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  /** Disables the card, e.g. while an answer is on its way. */
  busy?: boolean;
  /** Puts the keyboard focus in the card when it appears. */
  autoFocus?: boolean;
}

/**
 * Asks one or more questions, one at a time ("Question 2 of 3"), with the defaults pre-picked so
 * Enter confirms. A lone single-choice question is answered by picking an option. Each field is
 * checked with the server's own rules and shows the server's sentence beside it.
 *
 * @example
 * ```tsx
 * <QuestionCard action={action} onSubmit={(resolution) => answer(action.id, resolution)} />
 * ```
 */
export function QuestionCard(props: QuestionCardProps) {
  if (!props.action.questions?.length) return null;
  return <QuestionSteps {...props} />;
}

function QuestionSteps({ action, onSubmit, busy = false, autoFocus = false }: QuestionCardProps) {
  const form = useQuestionForm(action.questions ?? [], onSubmit, busy, autoFocus);
  const base = useId();
  const { question, step, disabled } = form;
  const promptId = `${base}-prompt-${question.id}`;
  return (
    <form
      ref={form.formRef}
      className="heed-card heed-question-card"
      aria-labelledby={`${base}-title`}
      aria-busy={disabled}
      noValidate
      onKeyDown={(event) => onFormKeyDown(event, form)}
      onSubmit={(event) => {
        event.preventDefault();
        form.advance();
      }}
    >
      <QuestionHead form={form} titleId={`${base}-title`} />
      {action.preamble && step === 0 && <p className="heed-preamble">{action.preamble}</p>}
      <p id={promptId} className="heed-prompt">
        {question.prompt}
      </p>
      {question.description && <p className="heed-description">{question.description}</p>}
      <QuestionBody form={form} base={base} promptId={promptId} />
      <AnswerNotice text={form.notice} />
      <QuestionActions form={form} />
      <p className="heed-hint" aria-hidden="true">
        {questionHint(question, form.lone)}
      </p>
    </form>
  );
}

/**
 * The card's keys: Enter confirms (Ctrl+Enter in a text area) and picks the focused option; a
 * number or letter picks the option it labels, unless the person is typing.
 */
function onFormKeyDown(event: KeyboardEvent<HTMLFormElement>, form: QuestionForm) {
  const { question, control } = form;
  if (event.altKey || event.metaKey || (event.ctrlKey && event.key !== 'Enter')) return;
  const target = event.target as HTMLElement;
  const tag = target.tagName;
  const inputType = tag === 'INPUT' ? (target as HTMLInputElement).type : '';
  const typing =
    tag === 'TEXTAREA' || tag === 'SELECT' || (tag === 'INPUT' && !['radio', 'checkbox', 'button'].includes(inputType));
  if (event.key === 'Enter') {
    if (tag === 'TEXTAREA' && !event.ctrlKey) return;
    if (tag === 'BUTTON' && !target.dataset.option) return;
    event.preventDefault();
    if (target.dataset.option !== undefined) {
      if (question.multiple) form.advance();
      else form.choose(target.dataset.option, 'enter');
    } else {
      form.advance();
    }
    return;
  }
  if (typing || event.ctrlKey || event.key.length !== 1) return;
  const option = optionForHotkey(question, event.key);
  if (option && control !== 'select') {
    event.preventDefault();
    form.choose(option.value, 'click');
    form.formRef.current?.querySelector<HTMLElement>(`[data-option="${CSS.escape(option.value)}"]`)?.focus();
  }
}
