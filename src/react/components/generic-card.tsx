import { useEffect, useId, useRef } from 'react';
import { presentationOf, summaryOf, titleOf } from '../../kinds/index.js';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { ActionView } from '../../views.js';
import type { AnswerResult } from '../state/conversation-store.js';
import { AnswerNotice, useAnswerSender } from './answer-notice.js';

export interface GenericCardProps {
  /** A pending action of a kind with no card of its own. */
  action: ActionView;
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  busy?: boolean;
  autoFocus?: boolean;
}

/**
 * The card of a kind that has none of its own: what its kind says it is (title and summary) and the
 * answers its presentation offers as one press each (`choices`). A kind that offers none is answered
 * elsewhere (over HTTP, or by an app that knows it); the card says so.
 */
export function GenericCard({ action, onSubmit, busy = false, autoFocus = false }: GenericCardProps) {
  const base = useId();
  const sender = useAnswerSender(onSubmit);
  const rootRef = useRef<HTMLElement>(null);
  const disabled = busy || sender.sending;
  const choices = presentationOf(action.kind).choices?.(action) ?? [];

  useEffect(() => {
    if (autoFocus) rootRef.current?.focus();
    // Only when the card appears.
  }, []);

  return (
    <section
      ref={rootRef}
      tabIndex={-1}
      className={`heed-card heed-generic-card heed-${action.kind}-card`}
      aria-labelledby={`${base}-title`}
      aria-busy={disabled}
    >
      <div className="heed-card-head">
        <h3 id={`${base}-title`} className="heed-card-title">
          {titleOf(action)}
        </h3>
      </div>
      <p className="heed-description">{summaryOf(action)}</p>
      <AnswerNotice text={sender.notice} />
      {choices.length > 0 ? (
        <div className="heed-actions">
          {choices.map((choice) => (
            <button
              key={choice.label}
              type="button"
              className={choice.primary ? 'heed-button heed-primary' : 'heed-button'}
              disabled={disabled}
              onClick={() => void sender.send(choice.answer)}
            >
              {choice.label}
            </button>
          ))}
        </div>
      ) : (
        <p className="heed-hint">This request cannot be answered here.</p>
      )}
    </section>
  );
}
