import { useEffect, useRef, useState } from 'react';
import type { ActionView, ResolutionInput } from 'heed/client';
import {
  batchAnswerOf,
  batchOutcome,
  byWhom,
  detailOf,
  headlineOf,
  nounOf,
  planBatch,
  progressOf,
  toChatError,
  useHeedClient,
  useHeedUser,
  useInbox,
  type BatchDecision,
  type BatchOutcome,
  type BatchPlan,
} from 'heed/react';
import { ago, shortTime, useConsole } from '../console.js';
import { Link } from '../router.js';
import { DelegationPanel } from './delegation-panel.js';
import { PushPanel } from './push-panel.js';
import { isSignedIn } from '../session.js';

/**
 * A request answered here with one press, as its row's Allow and Deny: one its kind lets a batch approve (an
 * approval, not one decided by votes, which are cast on the conversation's page). Other kinds are answered there.
 */
function answerableHere(action: ActionView): boolean {
  return !('refused' in batchAnswerOf(action, 'approve')) && Boolean(action.conversation?.ownerId);
}

/** Everything waiting on the signed-in person, across conversations, oldest first; several answered at once. */
export function InboxPage() {
  const { session } = useConsole();
  const inbox = useInbox({ intervalMs: 3000 });
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [plan, setPlan] = useState<BatchPlan | null>(null);
  const [outcomes, setOutcomes] = useState<BatchOutcome[] | null>(null);
  // Only what still waits stays selected: a request answered elsewhere leaves the list and the selection.
  const chosen = inbox.actions.filter((action) => selected.has(action.id));
  const allChosen = inbox.actions.length > 0 && chosen.length === inbox.actions.length;

  function toggle(id: string) {
    setSelected((before) => {
      const next = new Set(before);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  return (
    <section className="page" aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      {inbox.connection === 'reconnecting' && (
        <p className="connection-note" role="status">
          Reconnecting… The live connection to the server was cut.
        </p>
      )}
      {outcomes && <BatchResults outcomes={outcomes} onDismiss={() => setOutcomes(null)} />}
      {!isSignedIn(session) ? (
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
          <div className="inbox-batch" role="group" aria-label="Answer the selected">
            <label className="inbox-select-all">
              <input
                type="checkbox"
                checked={allChosen}
                ref={(box) => {
                  if (box) box.indeterminate = chosen.length > 0 && !allChosen;
                }}
                onChange={() => setSelected(allChosen ? new Set() : new Set(inbox.actions.map((action) => action.id)))}
              />
              Select all
            </label>
            <span className="inbox-selected" aria-live="polite">
              {chosen.length} selected
            </span>
            <span className="inbox-batch-buttons">
              <button
                type="button"
                className="heed-button heed-primary"
                disabled={chosen.length === 0 || plan !== null}
                onClick={() => setPlan(planBatch(chosen, 'approve'))}
              >
                Approve all
              </button>
              <button
                type="button"
                className="heed-button heed-danger"
                disabled={chosen.length === 0 || plan !== null}
                onClick={() => setPlan(planBatch(chosen, 'deny'))}
              >
                Deny all
              </button>
            </span>
          </div>
          {plan && (
            <BatchPreflight
              plan={plan}
              onCancel={() => setPlan(null)}
              onDone={(done) => {
                setPlan(null);
                setOutcomes(done);
                setSelected(new Set());
                void inbox.refresh();
              }}
            />
          )}
          <ul className="inbox-list" aria-label="Waiting on you">
            {inbox.actions.map((action) => (
              <InboxRow
                key={action.id}
                action={action}
                selected={selected.has(action.id)}
                onToggle={() => toggle(action.id)}
              />
            ))}
          </ul>
        </>
      )}
      {inbox.error && (
        <p className="banner" role="alert">
          {inbox.error.message}
        </p>
      )}
      {isSignedIn(session) && <PushPanel />}
      {isSignedIn(session) && <DelegationPanel />}
    </section>
  );
}

const VERB: Record<BatchDecision, { ask: string; send: string; sending: string }> = {
  approve: { ask: 'Approve', send: 'Approve', sending: 'Approving…' },
  deny: { ask: 'Deny', send: 'Deny', sending: 'Denying…' },
};

function count(n: number): string {
  return n === 1 ? '1 request' : `${n} requests`;
}

/**
 * What Approve all or Deny all will do, before anything is sent: how many, which tools run with which
 * arguments, and which of the selected cannot take that decision and are left out. Nothing is remembered.
 */
function BatchPreflight({
  plan,
  onCancel,
  onDone,
}: {
  plan: BatchPlan;
  onCancel: () => void;
  onDone: (outcomes: BatchOutcome[]) => void;
}) {
  const client = useHeedClient();
  const me = useHeedUser();
  const [sending, setSending] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const verb = VERB[plan.decision];
  const runs = plan.send.filter((item) => item.runs);

  async function send() {
    setSending(true);
    setFailed(null);
    try {
      const results = await client.decide(
        plan.send.map((item) => ({ actionId: item.action.id, resolution: item.answer })),
      );
      onDone(
        plan.send.map((item) =>
          batchOutcome(
            item,
            results.find((result) => result.actionId === item.action.id),
            me,
          ),
        ),
      );
    } catch (thrown) {
      // Nothing was settled when the whole request failed (signed out, server away): the selection stays.
      setFailed(toChatError(thrown).message);
      setSending(false);
    }
  }

  return (
    <section className="inbox-preflight" aria-labelledby="preflight-title">
      <h2 id="preflight-title" tabIndex={-1} ref={heading}>
        {plan.send.length === 0
          ? `None of the selected can be ${plan.decision === 'approve' ? 'approved' : 'denied'} here`
          : `${verb.ask} ${count(plan.send.length)}?`}
      </h2>
      {plan.decision === 'approve' && plan.send.length > 0 && (
        <>
          <p>
            {runs.length === 0
              ? 'No tool runs.'
              : runs.length === 1
                ? 'This will run:'
                : `These ${runs.length} will run:`}
          </p>
          <ul className="inbox-preflight-list" aria-label="Will run">
            {runs.map((item) => (
              <li key={item.action.id}>
                <code>{item.runs}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {plan.decision === 'deny' && plan.send.length > 0 && (
        <>
          <p>Nothing runs: each call is refused, and its agent reads that you denied it.</p>
          <ul className="inbox-preflight-list" aria-label="Will be denied">
            {plan.send.map((item) => (
              <li key={item.action.id}>{headlineOf(item.action)}</li>
            ))}
          </ul>
        </>
      )}
      {plan.leftOut.length > 0 && (
        <>
          <p>Left out ({plan.leftOut.length}):</p>
          <ul className="inbox-preflight-list" aria-label="Left out">
            {plan.leftOut.map(({ action, reason }) => (
              <li key={action.id}>
                <strong>{headlineOf(action)}</strong> — {reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {plan.decision === 'approve' && plan.send.length > 0 && (
        <p className="muted">Each is approved once: no approval is remembered for later calls.</p>
      )}
      {failed && (
        <p className="inbox-error" role="alert">
          {failed}
        </p>
      )}
      <div className="inbox-answer">
        {plan.send.length > 0 && (
          <button
            type="button"
            className={`heed-button ${plan.decision === 'approve' ? 'heed-primary' : 'heed-danger'}`}
            disabled={sending}
            onClick={() => void send()}
          >
            {sending ? verb.sending : `${verb.send} ${count(plan.send.length)}`}
          </button>
        )}
        <button type="button" className="heed-button" disabled={sending} onClick={onCancel}>
          Back
        </button>
      </div>
    </section>
  );
}

/** How each answer of the last batch went: settled, already answered (by whom, how), or refused (why). */
function BatchResults({ outcomes, onDismiss }: { outcomes: BatchOutcome[]; onDismiss: () => void }) {
  const settled = outcomes.filter((outcome) => outcome.state === 'settled').length;
  return (
    <section className="inbox-results" aria-labelledby="results-title">
      <h2 id="results-title">
        {settled} of {count(outcomes.length)} settled
      </h2>
      <ul className="inbox-preflight-list" aria-label="How each answer went">
        {outcomes.map((outcome) => (
          <li key={outcome.action.id} className={`inbox-outcome inbox-outcome-${outcome.state}`}>
            <strong>{headlineOf(outcome.action)}</strong> <span>{outcome.text}</span>
          </li>
        ))}
      </ul>
      <button type="button" className="heed-button" onClick={onDismiss}>
        Dismiss
      </button>
    </section>
  );
}

type RowState =
  | { state: 'idle' }
  | { state: 'sending'; decision: 'allow' | 'deny' }
  | { state: 'done'; decision: 'allow' | 'deny' }
  | { state: 'failed'; message: string };

function InboxRow({ action, selected, onToggle }: { action: ActionView; selected: boolean; onToggle: () => void }) {
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
      const answer = batchAnswerOf(action, decision === 'allow' ? 'approve' : 'deny');
      if ('refused' in answer) throw new Error(answer.refused);
      for await (const part of client.answerStream(
        action.conversationId,
        action.id,
        answer.answer as ResolutionInput,
      )) {
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
      <input
        type="checkbox"
        className="inbox-check"
        checked={selected}
        onChange={onToggle}
        aria-label={`Select: ${headlineOf(action)}`}
      />
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
