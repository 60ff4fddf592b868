import { useState } from 'react';
import type { ActionView } from 'heed/client';
import {
  byWhom,
  detailOf,
  headlineOf,
  nounOf,
  progressOf,
  toChatError,
  useHeedClient,
  useHeedUser,
  useInbox,
} from 'heed/react';
import { ago, shortTime, useConsole } from '../console.js';
import { Link } from '../router.js';
import { DelegationPanel } from './delegation-panel.js';

/**
 * An approval answered here with one press, as its row's Allow and Deny: one answer decides it (no votes, which
 * are cast on the conversation's page). Other kinds are answered there too.
 */
function answerableHere(action: ActionView): boolean {
  return action.kind === 'approval' && !progressOf(action) && Boolean(action.conversation?.ownerId);
}

/** Everything waiting on the signed-in person, across conversations, oldest first. */
export function InboxPage() {
  const { session } = useConsole();
  const inbox = useInbox({ intervalMs: 3000 });
  return (
    <section className="page" aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      {inbox.connection === 'reconnecting' && (
        <p className="connection-note" role="status">
          Reconnecting… The live connection to the server was cut.
        </p>
      )}
      {!session.token ? (
        <p className="muted">The inbox lists what waits on a signed-in person. Sign in with a token to see yours.</p>
      ) : inbox.status === 'loading' ? (
        <p className="muted" role="status">
          Loading…
        </p>
      ) : inbox.actions.length === 0 ? (
        <p className="muted">Nothing is waiting on you.</p>
      ) : (
        <>
          <p className="muted" aria-live="polite">
            {inbox.actions.length === 1 ? '1 request is' : `${inbox.actions.length} requests are`} waiting on you.
          </p>
          <ul className="inbox-list" aria-label="Waiting on you">
            {inbox.actions.map((action) => (
              <InboxRow key={action.id} action={action} />
            ))}
          </ul>
        </>
      )}
      {inbox.error && (
        <p className="banner" role="alert">
          {inbox.error.message}
        </p>
      )}
      {session.token && <DelegationPanel />}
    </section>
  );
}

type RowState =
  | { state: 'idle' }
  | { state: 'sending'; decision: 'allow' | 'deny' }
  | { state: 'done'; decision: 'allow' | 'deny' }
  | { state: 'failed'; message: string };

function InboxRow({ action }: { action: ActionView }) {
  const client = useHeedClient();
  const me = useHeedUser();
  const [row, setRow] = useState<RowState>({ state: 'idle' });
  const owner = action.conversation?.ownerId;
  const where = action.conversation
    ? `${action.conversation.agent}${action.conversation.title ? ` · “${action.conversation.title}”` : ''}`
    : 'conversation';
  const more = detailOf(action);
  const progress = progressOf(action);
  const headingId = `inbox-${action.id}`;

  async function answer(decision: 'allow' | 'deny') {
    setRow({ state: 'sending', decision });
    try {
      // The normal answer route; once the answer is recorded, the rest of the turn goes on without this page.
      for await (const part of client.answerStream(action.conversationId, action.id, { type: 'approval', decision })) {
        if (part.type === 'event' || part.type === 'done') break;
      }
      setRow({ state: 'done', decision });
    } catch (thrown) {
      const error = toChatError(thrown);
      const details = error.details ?? {};
      const first =
        error.code === 'action_not_pending'
          ? `Already ${typeof details.status === 'string' ? details.status : 'answered'}${byWhom({ resolvedBy: typeof details.resolvedBy === 'string' ? details.resolvedBy : undefined, channel: typeof details.channel === 'string' ? details.channel : undefined }, me)}.`
          : error.message;
      setRow({ state: 'failed', message: first });
    }
  }

  return (
    <li className="inbox-item">
      <span className={`heed-badge heed-badge-kind-${action.kind}`}>{nounOf(action)}</span>
      <div className="inbox-text">
        <Link to={`/c/${encodeURIComponent(action.conversationId)}`} className="inbox-title" id={headingId}>
          {headlineOf(action)}
        </Link>
        {more && <span className="inbox-detail">{more}</span>}
        {progress && <span className="inbox-detail">{progress}. Open it to vote.</span>}
        <span className="inbox-meta">
          {where}
          {owner ? ` · asked by ${owner === me ? 'you' : owner}` : ''}
          {action.onBehalfOf ? ` · for ${action.onBehalfOf}` : ''} ·{' '}
          <time dateTime={action.createdAt}>{ago(action.createdAt)}</time>
          {action.expiresAt && ` · lapses ${shortTime(action.expiresAt)}`}
        </span>
        {row.state === 'failed' && (
          <span className="inbox-error" role="alert">
            {row.message}
          </span>
        )}
      </div>
      {answerableHere(action) && (
        <div className="inbox-answer">
          {row.state === 'done' ? (
            <span className="inbox-done" role="status">
              {row.decision === 'allow' ? 'Allowed' : 'Denied'}
            </span>
          ) : (
            <>
              <button
                type="button"
                className="heed-button heed-primary"
                disabled={row.state === 'sending'}
                aria-describedby={headingId}
                onClick={() => void answer('allow')}
              >
                {row.state === 'sending' && row.decision === 'allow' ? 'Allowing…' : 'Allow'}
              </button>
              <button
                type="button"
                className="heed-button heed-danger"
                disabled={row.state === 'sending'}
                aria-describedby={headingId}
                onClick={() => void answer('deny')}
              >
                {row.state === 'sending' && row.decision === 'deny' ? 'Denying…' : 'Deny'}
              </button>
            </>
          )}
        </div>
      )}
    </li>
  );
}
