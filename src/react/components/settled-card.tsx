import type { ReactNode } from 'react';
import {
  answeredByOf,
  byKind,
  changedByAnswer,
  describeResolution,
  lapsed,
  outcomeOf,
  ownResolution,
  titleOf,
  type ByKind,
} from '../../kinds/index.js';
import { commentText } from '../../kinds/comment-text.js';
import type { StoredResolution } from '../../types.js';
import type { ActionView } from '../../views.js';
import { argumentsDiff } from '../state/arguments-diff.js';
import { answerLabels } from '../../client/question-drafts.js';
import { describeResolver } from '../state/transcript.js';
import { ArgumentsView } from './approval-card.js';

export interface SettledCardProps {
  /** An action that is no longer pending. */
  action: ActionView;
  /** The signed-in user's id, so their own answers read "you". */
  me?: string | null;
}

function when(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ''
    : date.toLocaleString([], { hour: '2-digit', minute: '2-digit', month: 'short', day: 'numeric' });
}

/** How a settled request ended, in a few words (`outcomeOf`: its kind's outcome, or that it lapsed or was withdrawn). */
export const settledHeadline = outcomeOf;

/** What a settled card of each kind shows of the answer, below its headline. */
const answerShown: ByKind<ReactNode, []> = {
  question(action) {
    const resolution = ownResolution(action);
    if (!resolution || !('answers' in resolution)) return null;
    const defaulted = new Set(action.defaulted ?? []);
    return (
      <dl className="heed-answers">
        {(action.questions ?? []).map((question) => {
          const values = resolution.answers[question.id];
          return (
            <div key={question.id} className="heed-answer">
              <dt>{question.header}</dt>
              <dd>
                {values && values.length > 0 ? answerLabels(question, values).join(', ') : <em>no answer</em>}
                {defaulted.has(question.id) && <span className="heed-default-mark"> (default)</span>}
              </dd>
            </div>
          );
        })}
      </dl>
    );
  },
  approval(action) {
    const resolution = ownResolution(action);
    if (!resolution) return null;
    return (
      <>
        {resolution.approvedArgs !== undefined && (
          <ArgumentsDiff asked={action.originalArgs ?? action.args} approved={resolution.approvedArgs} />
        )}
        {resolution.comment && <blockquote className="heed-comment">{commentText(resolution.comment)}</blockquote>}
        {resolution.remember && <p className="heed-hint">Not asked again for {action.toolName} in this chat.</p>}
      </>
    );
  },
  client_tool(action) {
    const resolution = ownResolution(action);
    return resolution && 'error' in resolution ? <p className="heed-description">{resolution.error}</p> : null;
  },
  url: (action) => (
    <p className="heed-url">
      <code>{action.url}</code>
    </p>
  ),
};

const shown = (value: unknown) =>
  value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * What an approval with edited arguments asked and what was approved, argument by argument: the
 * changed ones struck out and replaced, so the card never reads as if the asked values ran.
 */
function ArgumentsDiff({ asked, approved }: { asked: unknown; approved: unknown }) {
  const rows = argumentsDiff(asked, approved);
  if (rows.every((row) => !row.changed)) return <ArgumentsView value={approved} />;
  return (
    <table className="heed-diff">
      <caption className="heed-hint">What was asked, and what was approved</caption>
      <thead>
        <tr>
          <th scope="col">Argument</th>
          <th scope="col">Asked</th>
          <th scope="col">Approved</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.name} className={row.changed ? 'heed-diff-changed' : undefined}>
            <th scope="row">
              <code>{row.name || '(the arguments)'}</code>
            </th>
            <td>{row.changed ? <del>{shown(row.asked)}</del> : <code>{shown(row.asked)}</code>}</td>
            <td>{row.changed ? <ins>{shown(row.approved)}</ins> : <code>{shown(row.approved)}</code>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A kind with nothing of its own to show of the answer: the headline says how it ended. */
const nothingMore = () => null;

/**
 * A request as it ended: what was chosen (labels, not stored values; defaults marked), who settled
 * it and when.
 */
export function SettledCard({ action, me }: SettledCardProps) {
  const resolution = action.resolution as StoredResolution | undefined;
  const headline = settledHeadline(action);
  const by = describeResolver(action, me);
  const title = titleOf(action);
  // The title was written for the arguments as asked: once they were edited, it says so rather than pose as what ran.
  const edited = changedByAnswer(action);
  const answeredBy = answeredByOf(action);
  return (
    <section className={`heed-card heed-settled heed-settled-${action.kind}`} aria-label={`${headline}: ${title}`}>
      <p className="heed-settled-head">
        <span className={`heed-badge heed-badge-${headline.split(' ')[0].toLowerCase()}`}>{headline}</span>
        <span className="heed-settled-title">
          {edited && <span className="heed-asked-mark">Asked: </span>}
          {title}
        </span>
      </p>
      {/* A lapse's stored answer is nobody's (seed 002's refusal, "timed out"): only the settled line is shown. */}
      {!lapsed(action) && byKind(answerShown, nothingMore, action)}
      {resolution?.type === 'cancelled' && <p className="heed-hint">Reason: {resolution.reason}</p>}
      <p className="heed-by">
        {lapsed(action) ? describeResolution(action) : answeredBy ? `Sent by ${answeredBy}` : `${headline} by ${by}`}
        {action.resolvedAt && <time dateTime={action.resolvedAt}> · {when(action.resolvedAt)}</time>}
      </p>
    </section>
  );
}
