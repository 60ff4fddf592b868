import { Box } from 'ink';
import type { ActionView } from '../../client/index.js';
import { describeResolution, describeWho } from './format.js';
import type { AnswerProblem, Settled } from './inbox-state.js';
import { Say } from './theme.js';
import { progressOf } from '../../kinds/index.js';

/** One sentence on how a request ended when it was not answered here. */
export function settledSentence(action: ActionView, settled: Settled): string {
  // The settled line every surface shows for a lapse (src/kinds/index.ts), never a denial.
  if (settled.status === 'expired' || settled.channel === 'timeout') return 'Lapsed: nobody answered in time.';
  if (settled.status === 'cancelled') return 'It was cancelled: the conversation moved on.';
  if (settled.status === 'pending') return 'It left the inbox.';
  if (settled.byMe) return `You answered: ${describeResolution(action, settled.resolution)}.`;
  return `${describeWho({ ...settled })} answered first: ${describeResolution(action, settled.resolution)}.`;
}

/** A few words for the list: `bob: allowed`, `you: answered (Size: Small)`, `lapsed`. */
export function settledShort(action: ActionView, settled: Settled): string {
  if (settled.status === 'expired' || settled.channel === 'timeout') return 'lapsed';
  if (settled.status === 'cancelled') return 'cancelled';
  // Still pending after my answer: it was one vote of several (an approval policy).
  const votes = progressOf(action);
  if (settled.status === 'pending' && settled.byMe && votes) return `you voted; ${votes}`;
  if (settled.status === 'pending') return 'no longer waiting';
  return `${settled.byMe ? 'you' : describeWho({ ...settled })}: ${describeResolution(action, settled.resolution)}`;
}

/** What the server said about an answer, above the keys; nothing typed is cleared by it. */
export function ProblemBanner({ action, problem }: { action: ActionView; problem: AnswerProblem | undefined }) {
  if (!problem) return null;
  if (problem.type === 'taken') {
    return (
      <Box flexDirection="column">
        <Say tone="warn">{settledSentence(action, problem.settled)}</Say>
        <Say tone="dim">Nothing was sent. Esc goes back to the list.</Say>
      </Box>
    );
  }
  if (problem.type === 'lapsed')
    return <Say tone="warn">It lapsed before your answer arrived; nothing was sent. Esc goes back.</Say>;
  if (problem.type === 'invalid') return <Say tone="bad">✗ {problem.message}</Say>;
  return <Say tone="bad">✗ {problem.message} Correct it or press the key again to retry.</Say>;
}

/** For a request someone else settled while it was open here. */
export function SettledBanner({ action, settled }: { action: ActionView; settled: Settled | undefined }) {
  if (!settled) return null;
  return <Say tone="warn">{settledSentence(action, settled)} Esc goes back.</Say>;
}

/** Whether a view may still send: not once it is settled, lapsed or taken. */
export function isClosed(settled: Settled | undefined, problem: AnswerProblem | undefined): boolean {
  return Boolean(settled) || problem?.type === 'taken' || problem?.type === 'lapsed';
}
