import type { ActionView } from 'heed/client';
import { summaryOf, useInbox } from 'heed/react';
import { shortTime, useConsole } from '../console.js';
import { Link } from '../router.js';

/** What each kind is called here; a kind left out is called by its name. */
const KIND_WORDS: Partial<Record<ActionView['kind'], string>> = { approval: 'Approval', question: 'Question', client_tool: 'Page action', url: 'Open a page' };

function summary(action: ActionView): string {
  if (action.kind === 'approval') return action.title || `Run ${action.toolName}?`;
  if (action.kind === 'url') return action.title || action.url || 'Open a page';
  if (action.kind === 'client_tool') return `${action.toolName} in the page`;
  if (action.kind !== 'question') return summaryOf(action);
  const questions = action.questions ?? [];
  const first = questions[0]?.prompt ?? 'A question';
  return questions.length > 1 ? `${first} (+${questions.length - 1} more)` : first;
}

/** Everything waiting on the signed-in person, across conversations, oldest first. */
export function InboxPage() {
  const { session, conversations } = useConsole();
  const inbox = useInbox({ intervalMs: 3000 });
  const agentOf = new Map(conversations.map((conversation) => [conversation.id, conversation.agent]));
  return (
    <section className="page" aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      {!session.token ? (
        <p className="muted">The inbox lists what waits on a signed-in person. Sign in with a token to see yours.</p>
      ) : inbox.status === 'loading' ? (
        <p className="muted">Loading…</p>
      ) : inbox.actions.length === 0 ? (
        <p className="muted">Nothing is waiting on you.</p>
      ) : (
        <>
          <p className="muted" aria-live="polite">
            {inbox.actions.length === 1 ? '1 request is' : `${inbox.actions.length} requests are`} waiting on you.
          </p>
          <ul className="inbox-list" aria-label="Waiting on you">
            {inbox.actions.map((action) => (
              <li key={action.id} className="inbox-item">
                <span className={`heed-badge heed-badge-kind-${action.kind}`}>{KIND_WORDS[action.kind] ?? action.kind}</span>
                <span className="inbox-text">
                  <Link to={`/c/${encodeURIComponent(action.conversationId)}`} className="inbox-title">
                    {summary(action)}
                  </Link>
                  <span className="inbox-meta">
                    {agentOf.get(action.conversationId) ?? 'conversation'} · asked {shortTime(action.createdAt)}
                    {action.expiresAt && ` · lapses ${shortTime(action.expiresAt)}`}
                  </span>
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      {inbox.error && (
        <p className="banner" role="alert">
          {inbox.error.message}
        </p>
      )}
    </section>
  );
}
