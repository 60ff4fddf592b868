import type { StoredResolution } from '../../types.js';
import type { ActionView } from '../../views.js';
import { answerLabels } from '../state/question-form.js';
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
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString([], { hour: '2-digit', minute: '2-digit', month: 'short', day: 'numeric' });
}

/** How a settled request ended, in a few words. */
export function settledHeadline(action: ActionView): string {
  const resolution = action.resolution as StoredResolution | undefined;
  if (action.status === 'expired') return 'Timed out';
  if (!resolution || resolution.type === 'cancelled') return 'Closed without an answer';
  switch (resolution.type) {
    case 'question':
      return 'dismiss' in resolution ? 'Dismissed' : 'skip' in resolution ? 'Skipped' : 'Answered';
    case 'approval':
      return resolution.decision === 'allow' ? (resolution.approvedArgs !== undefined ? 'Allowed with changes' : 'Allowed') : 'Denied';
    case 'client_tool':
      return 'error' in resolution ? 'The page could not answer' : 'Answered by the page';
    case 'url':
      return resolution.decision === 'accept' ? 'Opened' : resolution.decision === 'decline' ? 'Declined' : 'Not now';
  }
}

/**
 * A request as it ended: what was chosen (labels, not stored values; defaults marked), who settled
 * it and when.
 */
export function SettledCard({ action, me }: SettledCardProps) {
  const resolution = action.resolution as StoredResolution | undefined;
  const headline = settledHeadline(action);
  const by = describeResolver(action, me);
  const title =
    action.kind === 'approval'
      ? action.title || action.toolName
      : action.kind === 'url'
        ? action.title || 'Open a page'
        : action.kind === 'client_tool'
          ? action.toolName
          : action.questions && action.questions.length > 1
            ? `${action.questions.length} questions`
            : action.questions?.[0]?.prompt ?? 'Question';
  const defaulted = new Set(action.kind === 'question' ? action.defaulted : []);
  return (
    <section className={`heed-card heed-settled heed-settled-${action.kind}`} aria-label={`${headline}: ${title}`}>
      <p className="heed-settled-head">
        <span className={`heed-badge heed-badge-${headline.split(' ')[0].toLowerCase()}`}>{headline}</span>
        <span className="heed-settled-title">{title}</span>
      </p>
      {action.kind === 'question' && resolution?.type === 'question' && 'answers' in resolution && (
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
      )}
      {action.kind === 'approval' && resolution?.type === 'approval' && (
        <>
          {resolution.approvedArgs !== undefined && (
            <div className="heed-settled-args">
              <p className="heed-hint">Approved arguments</p>
              <ArgumentsView value={resolution.approvedArgs} />
            </div>
          )}
          {resolution.comment && <blockquote className="heed-comment">{resolution.comment}</blockquote>}
          {resolution.remember && <p className="heed-hint">Not asked again for {action.toolName} in this chat.</p>}
        </>
      )}
      {action.kind === 'client_tool' && resolution?.type === 'client_tool' && 'error' in resolution && <p className="heed-description">{resolution.error}</p>}
      {action.kind === 'url' && <p className="heed-url"><code>{action.url}</code></p>}
      {resolution?.type === 'cancelled' && <p className="heed-hint">Reason: {resolution.reason}</p>}
      <p className="heed-by">
        {action.kind === 'client_tool' && resolution?.type === 'client_tool' ? 'Sent by the page' : `${headline} by ${by}`}
        {action.resolvedAt && <time dateTime={action.resolvedAt}> · {when(action.resolvedAt)}</time>}
      </p>
    </section>
  );
}
