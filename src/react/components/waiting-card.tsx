import type { ReactNode } from 'react';
import { byKind, summaryOf, titleOf, type ByKind } from '../../kinds/index.js';
import type { ActionView } from '../../views.js';
import { votesSummary } from '../state/votes.js';
import { ArgumentsView } from './approval-card.js';

export interface WaitingCardProps {
  /** A pending action the viewer cannot answer here. */
  action: ActionView;
  /** Whom or where it waits on, in a line: "Waiting for an answer in Slack", "Waiting for 2 of: grace, lin". */
  note: string;
  /** Why there are no controls, when that needs saying. */
  reason?: string;
}

/** What each kind shows of what it asks (its content, without controls). */
const asked: ByKind<ReactNode, []> = {
  approval(action) {
    const votes = votesSummary(action);
    return (
      <>
        {action.summary && <p className="heed-description">{action.summary}</p>}
        <ArgumentsView value={action.args} />
        {votes && <p className="heed-votes">{votes}</p>}
      </>
    );
  },
  question(action) {
    return (
      <>
        {action.preamble && <p className="heed-preamble">{action.preamble}</p>}
        <dl className="heed-answers heed-waiting-questions">
          {(action.questions ?? []).map((question) => (
            <div key={question.id} className="heed-answer">
              <dt>{question.prompt}</dt>
              <dd>
                {question.options?.length
                  ? question.options.map((option, index) => (
                      <span key={option.value}>
                        {index > 0 && ' · '}
                        {option.label}
                        {question.defaults?.includes(option.value) && (
                          <span className="heed-default-mark"> (pre-picked)</span>
                        )}
                      </span>
                    ))
                  : (question.input?.type ?? 'text')}
              </dd>
            </div>
          ))}
        </dl>
      </>
    );
  },
  url: (action) => (
    <>
      {action.message && <p className="heed-description">{action.message}</p>}
      <p className="heed-url">
        <code>{action.url}</code>
      </p>
    </>
  ),
  client_tool: (action) => <p className="heed-description">The agent asked the page to run {action.toolName}.</p>,
};

/**
 * A request as it waits, read-only: what it asks (title, arguments, questions, address) and where or on
 * whom it waits, with no controls. For a request answered elsewhere (a channel's thread) or by others
 * (an approval the viewer may not vote on).
 */
export function WaitingCard({ action, note, reason }: WaitingCardProps) {
  const title = titleOf(action);
  return (
    <section className={`heed-card heed-waiting-card heed-waiting-${action.kind}`} aria-label={`${note}: ${title}`}>
      <div className="heed-card-head">
        <h3 className="heed-card-title">{title}</h3>
        {action.toolName && action.kind !== 'question' && (
          <span className="heed-chip heed-tool-name">{action.toolName}</span>
        )}
      </div>
      <p className="heed-waiting-note" role="status">
        {note}
      </p>
      {byKind(
        asked,
        (view) => (
          <p className="heed-description">{summaryOf(view)}</p>
        ),
        action,
      )}
      {reason && <p className="heed-hint">{reason}</p>}
    </section>
  );
}
