import { useId, useState } from 'react';
import type { ResolutionInput } from '../../actions/resolution-input.js';
import type { ActionView } from '../../views.js';
import type { AnswerResult, ClientToolRun } from '../state/conversation-store.js';

export interface ClientToolCardProps {
  /** A pending `client_tool` action. */
  action: ActionView;
  /** How this page's handler is doing (from `useConversation().clientTools[action.id]`). */
  run?: ClientToolRun;
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  busy?: boolean;
}

/**
 * A call the page answers. While the registered handler runs it says so; when this page has no
 * handler, the person can tell the agent the page cannot do it.
 */
export function ClientToolCard({ action, run, onSubmit, busy = false }: ClientToolCardProps) {
  const base = useId();
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState<string>();
  const state = run?.state ?? 'no_handler';
  const text =
    state === 'running' || state === 'sent'
      ? `This page is running ${action.toolName}…`
      : state === 'failed'
        ? `This page could not send the result of ${action.toolName}: ${(run as { message: string }).message}`
        : `The agent asked this page to run ${action.toolName}${action.clientKind ? ` (${action.clientKind})` : ''}, but it has no handler for it.`;
  return (
    <section className="heed-card heed-client-tool-card" aria-labelledby={`${base}-title`} aria-busy={state === 'running' || busy || sending}>
      <div className="heed-card-head">
        <h3 id={`${base}-title`} className="heed-card-title">
          Page action
        </h3>
        <span className="heed-chip heed-tool-name">{action.toolName}</span>
      </div>
      <p className="heed-description" role="status">
        {text}
      </p>
      {notice && (
        <p className="heed-notice" role="alert">
          {notice}
        </p>
      )}
      {state !== 'running' && state !== 'sent' && (
        <div className="heed-actions">
          <button
            type="button"
            className="heed-button"
            disabled={busy || sending}
            onClick={async () => {
              setSending(true);
              const result = await onSubmit({ type: 'client_tool', error: 'This page cannot run that tool.' });
              setSending(false);
              if (!result.ok) setNotice(result.error.message);
            }}
          >
            Tell the agent this page can&apos;t
          </button>
        </div>
      )}
    </section>
  );
}
