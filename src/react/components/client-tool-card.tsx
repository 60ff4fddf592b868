import { useId } from 'react';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { ClientToolActionView } from '../../views.js';
import type { AnswerResult, ClientToolRun } from '../state/conversation-store.js';
import { AnswerNotice, useAnswerSender } from './answer-notice.js';

export interface ClientToolCardProps {
  /** A pending `client_tool` action. */
  action: ClientToolActionView;
  /** How this page's handler is doing (from `useConversation().clientTools[action.id]`). */
  run?: ClientToolRun;
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  /** Runs the handler of a call that waits for the person's go-ahead (`needs_confirmation`). */
  onRun?: () => void;
  busy?: boolean;
}

/**
 * A call the page answers. While the registered handler runs it says so; when this page has no
 * handler, the person can tell the agent the page cannot do it. In a conversation not trusted to run
 * page code on its own (someone else's, or an ownerless one opened from a link), it asks first.
 */
export function ClientToolCard({ action, run, onSubmit, onRun, busy = false }: ClientToolCardProps) {
  const base = useId();
  const { sending, notice, send } = useAnswerSender(onSubmit);
  const state = run?.state ?? 'no_handler';
  const text =
    state === 'running' || state === 'sent'
      ? `This page is running ${action.toolName}…`
      : state === 'failed'
        ? `This page could not send the result of ${action.toolName}: ${(run as { message: string }).message}`
        : state === 'needs_confirmation'
          ? `The agent asks this page to run ${action.toolName}${action.clientKind ? ` (${action.clientKind})` : ''}, which sends it what the page holds. This conversation was not started by you here: run it only if you trust it.`
          : `The agent asked this page to run ${action.toolName}${action.clientKind ? ` (${action.clientKind})` : ''}, but it has no handler for it.`;
  return (
    <section
      className="heed-card heed-client-tool-card"
      aria-labelledby={`${base}-title`}
      aria-busy={state === 'running' || busy || sending}
    >
      <div className="heed-card-head">
        <h3 id={`${base}-title`} className="heed-card-title">
          Page action
        </h3>
        <span className="heed-chip heed-tool-name">{action.toolName}</span>
      </div>
      <p className="heed-description" role="status">
        {text}
      </p>
      <AnswerNotice text={notice} />
      {state !== 'running' && state !== 'sent' && (
        <div className="heed-actions">
          {state === 'needs_confirmation' && onRun && (
            <button type="button" className="heed-button heed-primary" disabled={busy || sending} onClick={onRun}>
              Run {action.toolName}
            </button>
          )}
          <button
            type="button"
            className="heed-button"
            disabled={busy || sending}
            onClick={() => void send({ type: 'client_tool', error: 'This page cannot run that tool.' })}
          >
            Tell the agent this page can&apos;t
          </button>
        </div>
      )}
    </section>
  );
}
