import { useState } from 'react';
import type { ResolutionInput } from '../../client/index.js';
import { answerProblem, type AnswerProblem } from './inbox-state.js';
import { isClosed } from './outcome.js';
import type { RequestViewProps } from './view-props.js';

/**
 * Sending an answer from a request's view: whether it is on its way, what the server refused, and whether
 * the view is closed (someone else was first, or it lapsed: the list is told). `onInvalid` gets a 400's
 * problem and the error, for a view that shows it beside its fields.
 */
export function useAnswer(
  props: Pick<RequestViewProps, 'send' | 'onAnswered' | 'onSettled' | 'settled'>,
  onInvalid?: (problem: AnswerProblem, thrown: unknown) => void,
) {
  const [problem, setProblem] = useState<AnswerProblem>();
  const [sending, setSending] = useState(false);

  async function send(resolution: ResolutionInput) {
    setSending(true);
    setProblem(undefined);
    try {
      props.onAnswered(await props.send(resolution));
    } catch (thrown) {
      const next = answerProblem(thrown);
      setProblem(next);
      if (next.type === 'invalid') onInvalid?.(next, thrown);
      if (next.type === 'taken') props.onSettled(next.settled);
      if (next.type === 'lapsed') props.onSettled({ byMe: false, status: 'expired' });
    } finally {
      setSending(false);
    }
  }

  return { send, problem, sending, closed: isClosed(props.settled, problem) };
}
