import { useEffect, useState, type FormEvent } from 'react';
import { createClient, HeedClientError, type DemoInfo } from 'heed/client';
import type { Session, SsoState } from '../session.js';

/**
 * Sign in with the organization's identity provider when the server has one (`auth.oidc`), with a bearer
 * token from the server's config, or go on anonymously. On the demo (`heed serve` without a config, which
 * answers `GET /api/demo`), its users are one click away.
 */
export function SignInPage({
  onSignIn,
  current,
  provider,
}: {
  onSignIn: (session: Session) => void;
  current: Session | null;
  provider?: SsoState['provider'];
}) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [checking, setChecking] = useState(false);
  const [demo, setDemo] = useState<DemoInfo>();

  useEffect(() => {
    // Any other server answers 404 (or 401 when it needs a token): then there is no demo to offer.
    createClient({ baseUrl: window.location.origin })
      .demo()
      .then(setDemo, () => undefined);
  }, []);

  async function attempt(next: Session) {
    setChecking(true);
    setError(undefined);
    try {
      // A list call needs the caller to be known: it tells a bad token (or a server that needs one) at once.
      const client = createClient({ baseUrl: window.location.origin, ...(next.token ? { token: next.token } : {}) });
      const listed = await client.listConversations({ limit: 1 });
      const owner = listed[0]?.ownerId ?? undefined;
      onSignIn(owner ? { ...next, userId: owner } : next);
    } catch (thrown) {
      if (HeedClientError.isInstance(thrown) && thrown.status === 401) {
        setError(
          next.token ? 'That token is not recognised by this server.' : 'This server needs a token: sign in with one.',
        );
      } else {
        setError(thrown instanceof Error ? thrown.message : String(thrown));
      }
    } finally {
      setChecking(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!token.trim()) {
      setError('Enter a token, or continue without signing in.');
      return;
    }
    void attempt({ token: token.trim() });
  }

  return (
    <main className="sign-in" id="main">
      <div className="sign-in-card">
        <h1>Heed</h1>
        <p className="muted">Answer your agents&apos; questions and approvals.</p>
        {provider && (
          <section className="sso" aria-label="Single sign-on">
            <a
              className="heed-button heed-primary sso-button"
              href={`${provider.loginUrl}?returnTo=${encodeURIComponent(returnPath())}`}
            >
              Sign in with {provider.name}
            </a>
            <p className="muted">Or use an access token below.</p>
          </section>
        )}
        {demo && demo.users.length > 0 && (
          <section className="demo-users" aria-labelledby="demo-heading">
            <h2 id="demo-heading">Try the demo</h2>
            <p className="muted">
              This server runs the demo: sign in as one of its people, no token needed. Each has requests waiting.
            </p>
            <div className="heed-actions">
              {demo.users.map((user, index) => (
                <button
                  key={user.userId}
                  type="button"
                  className={index === 0 ? 'heed-button heed-primary' : 'heed-button'}
                  disabled={checking}
                  onClick={() => void attempt({ token: user.token, userId: user.userId })}
                >
                  Try as {user.name}
                </button>
              ))}
            </div>
          </section>
        )}
        <form onSubmit={submit} noValidate>
          <div className="heed-field">
            <label htmlFor="token">Access token</label>
            <input
              id="token"
              type="password"
              autoComplete="off"
              value={token}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'sign-in-error' : 'token-hint'}
              onChange={(event) => setToken(event.target.value)}
              autoFocus={!provider}
            />
            <span id="token-hint" className="heed-hint">
              One of the tokens in the server&apos;s <code>auth.tokens</code>.
            </span>
          </div>
          {error && (
            <p id="sign-in-error" className="heed-field-error" role="alert">
              {error}
            </p>
          )}
          <div className="heed-actions">
            <button type="submit" className="heed-button heed-primary" disabled={checking}>
              Sign in
            </button>
            <button type="button" className="heed-button" disabled={checking} onClick={() => void attempt({})}>
              Continue without signing in
            </button>
          </div>
        </form>
        {current && (
          <p className="muted">
            You are {current.token ? 'signed in' : 'anonymous'} now; signing in again replaces that.
          </p>
        )}
      </div>
    </main>
  );
}

/** Where the person was going before the console sent them here: sign-in brings them back to it. */
function returnPath(): string {
  return new URLSearchParams(window.location.search).get('next') ?? '/';
}
