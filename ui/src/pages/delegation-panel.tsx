import { useEffect, useState, type FormEvent } from 'react';
import type { DelegationView } from 'heed/client';
import { toChatError } from 'heed/react';
import { shortTime, useConsole } from '../console.js';

/**
 * The signed-in person's delegation (docs/approvals.md, Delegation): hand what waits on them to someone until
 * a time, end it, and see whom they answer for themselves.
 */
export function DelegationPanel() {
  const { client, setStandsFor } = useConsole();
  const [view, setView] = useState<DelegationView | undefined>();
  const [to, setTo] = useState('');
  const [until, setUntil] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const show = (next: DelegationView) => {
    setView(next);
    setStandsFor(next.holding.map((held) => held.from));
  };
  useEffect(() => {
    client.delegation().then(show, (thrown: unknown) => setError(toChatError(thrown).message));
  }, [client]);

  async function run(call: () => Promise<DelegationView>) {
    setBusy(true);
    setError(undefined);
    try {
      show(await call());
    } catch (thrown) {
      setError(toChatError(thrown).message);
    } finally {
      setBusy(false);
    }
  }
  const save = (event: FormEvent) => {
    event.preventDefault();
    // The field is local time; the server takes an ISO time.
    const end = until ? new Date(until) : undefined;
    void run(() =>
      client.setDelegation({
        to: to.trim(),
        ...(end && !Number.isNaN(end.getTime()) ? { until: end.toISOString() } : {}),
      }),
    );
  };

  if (!view)
    return error ? (
      <p className="banner" role="alert">
        {error}
      </p>
    ) : null;
  const own = view.delegation;
  return (
    <section className="delegation" aria-labelledby="delegation-title">
      <h2 id="delegation-title">Delegation</h2>
      {own ? (
        <p>
          Your requests also go to <strong>{own.to}</strong>
          {own.until ? (
            <>
              {' '}
              until <time dateTime={own.until}>{shortTime(own.until)}</time>
            </>
          ) : (
            ' until you stop it'
          )}
          .{' '}
          <button
            type="button"
            className="heed-button"
            disabled={busy}
            onClick={() => void run(() => client.clearDelegation())}
          >
            Stop delegating
          </button>
        </p>
      ) : (
        <form className="delegation-form" onSubmit={save}>
          <label>
            Hand my requests to
            <input value={to} onChange={(event) => setTo(event.target.value)} placeholder="user id" required />
          </label>
          <label>
            until
            <input type="datetime-local" value={until} onChange={(event) => setUntil(event.target.value)} />
          </label>
          <button type="submit" className="heed-button heed-primary" disabled={busy || to.trim() === ''}>
            Delegate
          </button>
        </form>
      )}
      {view.holding.length > 0 && (
        <p className="muted">
          You answer for{' '}
          {view.holding.map((held, index) => (
            <span key={held.from}>
              {index > 0 ? ', ' : ''}
              <strong>{held.from}</strong>
              {held.until ? ` (until ${shortTime(held.until)})` : ''}
            </span>
          ))}
          .
        </p>
      )}
      {error && (
        <p className="inbox-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
