import { useEffect, useRef, useState, type RefObject } from 'react';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { Question } from '../../types.js';
import type { AnswerResult } from '../state/conversation-store.js';
import {
  buildAnswers,
  draftProblem,
  draftProblems,
  initialDrafts,
  pickOption,
  problemsFromDetails,
  questionControl,
  type QuestionControl,
  type QuestionDraft,
  type QuestionDrafts,
} from '../state/question-form.js';
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

/** The answers as typed so far, and the problems shown beside them. */
function useDrafts(questions: Question[]) {
  const [drafts, setDrafts] = useState<QuestionDrafts>(() => initialDrafts(questions));
  const [problems, setProblems] = useState<Record<string, string>>({});

  function update(question: Question, next: QuestionDraft) {
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
  return { drafts, problems, setProblems, update };
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
  const focusError = () => requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], [data-step-focus="true"]')?.focus());
  return { formRef, focusError };
}

/**
 * The questions one step at a time: checks each answer with the server's own rules before moving
 * on, and sends them all from the last step (or as soon as a lone single-choice question is picked).
 */
export function useQuestionForm(questions: Question[], onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>, busy: boolean, autoFocus: boolean): QuestionForm {
  const [step, setStep] = useState(0);
  const [previewed, setPreviewed] = useState<string>();
  const { drafts, problems, setProblems, update } = useDrafts(questions);
  const sender = useAnswerSender(onSubmit);
  const { formRef, focusError } = useStepFocus(step, autoFocus);
  const question = questions[step];
  const total = questions.length;
  const disabled = busy || sender.sending;
  const control = questionControl(question);
  const lone = total === 1 && control === 'single';
  const last = step === total - 1;

  const send = (resolution: ResolutionInput) =>
    sender.send(resolution, (error) => {
      // Problems the server found in particular answers are shown beside them, on the first such step.
      const fromServer = problemsFromDetails(questions, error.details);
      if (Object.keys(fromServer).length === 0) return false;
      setProblems(fromServer);
      const first = questions.findIndex((candidate) => fromServer[candidate.id]);
      if (first >= 0) setStep(first);
      return true;
    });

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
    const next = pickOption(question, drafts[question.id], value);
    const nextDrafts = { ...drafts, [question.id]: next };
    update(question, next);
    if (question.multiple) return;
    if (lone) submitAll(nextDrafts);
    else if (how === 'enter') advance(nextDrafts);
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
    draft: drafts[question.id],
    problems,
    notice: sender.notice,
    disabled,
    formRef,
    previewed,
    setPreviewed,
    send,
    update: (next) => update(question, next),
    advance: () => advance(),
    choose,
  };
}
