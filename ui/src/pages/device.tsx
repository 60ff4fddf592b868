import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { HeedClientError } from 'heed/client';
import { toChatError } from 'heed/react';
import { useConsole } from '../console.js';
import { answerDeviceCode, formatUserCode, readDeviceCode, type DeviceRequest } from '../device.js';
import { Link } from '../router.js';
import { isSignedIn } from '../session.js';

/*
 * `/auth/device`: where `heed inbox --login` sends the person. It reads the code (from `?code=`, or typed),
 * names the machine that asks, and approves or denies it; the terminal's next poll gets a token, or not.
 */

type State =
  | { step: 'enter'; problem?: string }
  | { step: 'checking'; code: string }
  | { step: 'asking'; code: string; request: DeviceRequest; busy?: 'approve' | 'deny'; problem?: string }
  | { step: 'done'; outcome: 'approved' | 'denied'; clientName: string };

function problemOf(thrown: unknown): string {
  if (HeedClientError.isInstance(thrown)) {
    if (thrown.status === 404)
      return 'No terminal is waiting with that code. It may have lapsed (codes last 10 minutes): check it, or run heed inbox --login again.';
    if (thrown.code === 'scope')
      return 'A personal token cannot approve a terminal. Sign in to the console with your account, then open this page again.';
  }
  return toChatError(thrown).message;
}

function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

export function DevicePage() {
  const { session } = useConsole();
  const given = new URLSearchParams(window.location.search).get('code') ?? '';
  const [typed, setTyped] = useState(given);
  const [state, setState] = useState<State>(() => {
    const code = formatUserCode(given);
    return code ? { step: 'checking', code } : { step: 'enter' };
  });
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const id = useId();
  const step = state.step;
  const checking = state.step === 'checking' ? state.code : undefined;

  // One look-up per code and caller, kept across an effect run twice (StrictMode) or a re-render: each counts
  // against the person's ten a minute. Settled, it is forgotten, so the same code typed again is asked again.
  const { token, csrf } = session;
  const lookup = useRef<{ key: string; answer: Promise<DeviceRequest> }>(undefined);
  useEffect(() => {
    if (!checking || !(token || csrf)) return;
    const key = `${checking}\n${token ?? ''}\n${csrf ?? ''}`;
    if (lookup.current?.key !== key) {
      const answer = readDeviceCode({ token, csrf }, checking);
      const forget = () => {
        if (lookup.current?.answer === answer) lookup.current = undefined;
      };
      answer.then(forget, forget);
      lookup.current = { key, answer };
    }
    let current = true;
    lookup.current.answer.then(
      (request) => current && setState({ step: 'asking', code: checking, request }),
      (thrown: unknown) => current && setState({ step: 'enter', problem: problemOf(thrown) }),
    );
    return () => {
      current = false;
    };
  }, [checking, token, csrf]);

  // Each new step is announced by its heading taking the focus (not on arrival: the page's own title).
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    // Back at the field after a refused code: the keyboard stays there to fix it (the alert says why).
    if (step === 'enter') field.current?.focus();
    else if (step !== 'checking') heading.current?.focus();
  }, [step]);

  if (!isSignedIn(session)) {
    const next = `/auth/device${window.location.search}`;
    return (
      <section className="page device" aria-labelledby={`${id}-title`}>
        <h1 id={`${id}-title`}>Sign in a terminal</h1>
        <p>Sign in first: the terminal will act as the person who approves it.</p>
        <Link to={`/sign-in?next=${encodeURIComponent(next)}`} className="heed-button heed-primary device-sign-in">
          Sign in
        </Link>
      </section>
    );
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const code = formatUserCode(typed);
    if (!code) return setState({ step: 'enter', problem: 'The code is 8 letters, like BCDF-GHJK.' });
    setState({ step: 'checking', code });
  }

  async function answer(outcome: 'approve' | 'deny') {
    if (state.step !== 'asking') return;
    setState({ ...state, busy: outcome, problem: undefined });
    try {
      const done = await answerDeviceCode(session, outcome, state.code);
      setState({ step: 'done', outcome: done.status, clientName: done.clientName });
    } catch (thrown) {
      setState({ ...state, busy: undefined, problem: problemOf(thrown) });
    }
  }

  return (
    <section className="page device" aria-labelledby={`${id}-title`}>
      {state.step === 'done' ? (
        <div className="device-card device-done">
          <h1 id={`${id}-title`} ref={heading} tabIndex={-1}>
            {state.outcome === 'approved' ? 'Terminal signed in' : 'Terminal turned away'}
          </h1>
          <p>
            {state.outcome === 'approved' ? (
              <>
                <strong>{state.clientName}</strong> is signed in as you. You can go back to your terminal.
              </>
            ) : (
              <>
                <strong>{state.clientName}</strong> was not signed in. You can go back to your terminal.
              </>
            )}
          </p>
          {state.outcome === 'approved' && (
            <p className="muted">
              Its token is on your <Link to="/tokens">Tokens</Link> page, where you can revoke it.
            </p>
          )}
        </div>
      ) : state.step === 'asking' ? (
        <div className="device-card">
          <h1 id={`${id}-title`} ref={heading} tabIndex={-1} className="device-question">
            <strong>{state.request.clientName}</strong> wants to sign in as you
          </h1>
          <p>
            Approve only if you started <code>heed inbox --login</code> there and it shows this code:
          </p>
          <p className="device-code">{state.code}</p>
          <p className="muted">
            It will read and answer what waits for {session.userId ? <strong>{session.userId}</strong> : 'you'} (a token
            with the scopes read and answer). The code lapses at{' '}
            <time dateTime={state.request.expiresAt}>{clock(state.request.expiresAt)}</time>.
          </p>
          {state.problem && (
            <p className="banner" role="alert">
              {state.problem}
            </p>
          )}
          <div className="device-buttons">
            <button
              type="button"
              className="heed-button heed-primary"
              disabled={state.busy !== undefined}
              onClick={() => void answer('approve')}
            >
              {state.busy === 'approve' ? 'Approving…' : 'Approve'}
            </button>
            <button
              type="button"
              className="heed-button heed-danger"
              disabled={state.busy !== undefined}
              onClick={() => void answer('deny')}
            >
              {state.busy === 'deny' ? 'Denying…' : 'Deny'}
            </button>
          </div>
        </div>
      ) : (
        <div className="device-card">
          <h1 id={`${id}-title`} ref={heading} tabIndex={-1}>
            Sign in a terminal
          </h1>
          {state.step === 'checking' ? (
            <p className="muted" role="status">
              Checking the code…
            </p>
          ) : (
            <form className="device-form" onSubmit={submit} noValidate>
              <label htmlFor={`${id}-code`}>The code your terminal shows</label>
              <div className="device-form-row">
                <input
                  id={`${id}-code`}
                  ref={field}
                  value={typed}
                  onChange={(event) => setTyped(event.target.value)}
                  placeholder="XXXX-XXXX"
                  maxLength={12}
                  autoComplete="off"
                  autoCapitalize="characters"
                  spellCheck={false}
                  aria-invalid={state.problem ? true : undefined}
                  aria-describedby={state.problem ? `${id}-problem` : `${id}-hint`}
                />
                <button type="submit" className="heed-button heed-primary">
                  Continue
                </button>
              </div>
              {state.problem ? (
                <p id={`${id}-problem`} className="banner" role="alert">
                  {state.problem}
                </p>
              ) : (
                <p id={`${id}-hint`} className="muted">
                  Run <code>heed inbox --login --url {window.location.origin}</code> in your terminal to get one.
                </p>
              )}
            </form>
          )}
        </div>
      )}
    </section>
  );
}
