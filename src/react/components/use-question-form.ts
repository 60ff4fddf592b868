import { useEffect, useRef, useState, useSyncExternalStore, type RefObject } from 'react';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { Question } from '../../types.js';
import type { AnswerResult } from '../state/conversation-store.js';
import {
  createQuestionForm,
  type QuestionField,
  type QuestionForm as HeadlessForm,
} from '../../client/question-form.js';
import { pickOption, questionControl, type QuestionControl, type QuestionDraft } from '../../client/question-drafts.js';
import { useAnswerSender } from './answer-notice.js';

/** How an option was picked: a click or a number key picks it, Enter also moves on. */
export type Choice = 'click' | 'enter';

/** A question card's state and what its controls do. */
export interface QuestionForm {
  questions: Question[];
  /** The question on screen, its index and the number of questions. */
  question: Question;
  step: number;
  total: number;
  setStep(step: number): void;
  control: QuestionControl;
  /** A lone single-choice question: picking an option answers it. */
  lone: boolean;
  last: boolean;
  draft: QuestionDraft;
  /** The step's field of the headless form (heed/client): its value, defaults, whether it was touched. */
  field: QuestionField;
  /** The sentence shown beside each question that needs attention, by question id. */
  problems: Record<string, string>;
  notice?: string;
  disabled: boolean;
  formRef: RefObject<HTMLFormElement | null>;
  /** The option whose preview is shown (hovered or focused), if any. */
  previewed?: string;
  setPreviewed(value: string | undefined): void;
  update(next: QuestionDraft): void;
  /** Next, or submit on the last question. */
  advance(): void;
  choose(value: string, how: Choice): void;
  send(resolution: ResolutionInput): Promise<void>;
}

/**
 * The answers as typed so far, in the headless form every front end shares (heed/client), and which
 * of its errors are shown: a field's error shows once the person tried to move on or send (or the
 * server refused it), and then follows the edits, so it goes away as soon as the answer is right.
 */
function useDrafts(questions: Question[]) {
  const [form] = useState<HeadlessForm>(() => createQuestionForm(questions));
  const state = useSyncExternalStore(form.subscribe, form.getState, form.getState);
  const [shown, setShown] = useState<ReadonlySet<string>>(() => new Set());
  const problems: Record<string, string> = Object.create(null);
  for (const field of state.fields) if (shown.has(field.id) && field.error) problems[field.id] = field.error;
  const reveal = (ids: string[], only = false) => setShown((current) => new Set(only ? ids : [...current, ...ids]));
  return { form, state, problems, reveal };
}

/**
 * Focuses the step's first control when the card appears (if asked) and whenever the step changes;
 * `focusError` moves the focus to the field that needs attention.
 */
function useStepFocus(step: number, autoFocus: boolean) {
  const formRef = useRef<HTMLFormElement>(null);
  const focusOnStep = useRef(autoFocus);
  useEffect(() => {
    if (!focusOnStep.current) {
      focusOnStep.current = true;
      return;
    }
    formRef.current?.querySelector<HTMLElement>('[data-step-focus="true"]')?.focus();
  }, [step]);
  const focusError = () =>
    requestAnimationFrame(() =>
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], [data-step-focus="true"]')?.focus(),
    );
  return { formRef, focusError };
}

/**
 * The questions one step at a time: checks each answer with the server's own rules before moving
 * on, and sends them all from the last step (or as soon as a lone single-choice question is picked).
 */
export function useQuestionForm(
  questions: Question[],
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>,
  busy: boolean,
  autoFocus: boolean,
): QuestionForm {
  const [step, setStep] = useState(0);
  const [previewed, setPreviewed] = useState<string>();
  const { form, state, problems, reveal } = useDrafts(questions);
  const sender = useAnswerSender(onSubmit);
  const { formRef, focusError } = useStepFocus(step, autoFocus);
  const question = questions[step];
  const field = state.fields[step];
  const total = questions.length;
  const disabled = busy || sender.sending;
  const control = questionControl(question);
  const lone = total === 1 && control === 'single';
  const last = step === total - 1;

  const send = (resolution: ResolutionInput) =>
    sender.send(resolution, (error) => {
      // Problems the server found in particular answers are shown beside them, on the first such step.
      const ids = form.showServerErrors(error.details);
      if (ids.length === 0) return false;
      reveal(ids, true);
      setStep(questions.findIndex((candidate) => candidate.id === ids[0]));
      return true;
    });

  function submitAll() {
    // Read from the form itself: a pick made in this same event is already in it.
    const current = form.getState();
    const wrong = current.fields.filter((candidate) => candidate.error !== null).map((candidate) => candidate.id);
    if (wrong.length > 0) {
      reveal(wrong, true);
      const first = questions.findIndex((candidate) => candidate.id === wrong[0]);
      if (first !== step) setStep(first);
      else focusError();
      return;
    }
    reveal([], true);
    void send(form.resolution());
  }

  function advance() {
    if (disabled) return;
    const now = form.field(question.id)!;
    if (now.error) {
      reveal([question.id]);
      focusError();
      return;
    }
    if (last) submitAll();
    else setStep(step + 1);
  }

  function choose(value: string, how: Choice) {
    if (disabled) return;
    form.setDraft(question.id, pickOption(question, form.field(question.id)!.draft, value));
    if (question.multiple) return;
    if (lone) submitAll();
    else if (how === 'enter') advance();
  }

  return {
    questions,
    question,
    step,
    total,
    setStep,
    control,
    lone,
    last,
    draft: field.draft,
    field,
    problems,
    notice: sender.notice,
    disabled,
    formRef,
    previewed,
    setPreviewed,
    send,
    update: (next) => form.setDraft(question.id, next),
    advance,
    choose,
  };
}
