import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { HeedClientError, type PersonalToken, type PersonalTokenCreated, type PersonalTokenScope } from 'heed/client';
import { toChatError } from 'heed/react';
import { ago, useConsole } from '../console.js';

/*
 * The signed-in person's personal tokens (docs/auth.md, Personal tokens): what they have, with when each
 * was made, last used and lapses; a form to make one, whose secret is shown once; Revoke, after a confirm.
 */

const SCOPES: Array<{ scope: PersonalTokenScope; hint: string }> = [
  { scope: 'read', hint: 'read conversations, the inbox and their streams' },
  { scope: 'answer', hint: 'answer, vote, extend, delegate' },
  { scope: 'converse', hint: 'start conversations, send messages, make requests' },
  { scope: 'admin', hint: 'the operator routes: queue, deliveries, metrics' },
];

const LAPSES = [
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: 'never', label: 'Never' },
] as const;

/** A day a person reads without a clock: "Mar 5, 2027". */
function day(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ''
    : date.toLocaleDateString([], { year: 'numeric', month: 'short', day: 'numeric' });
}

function refusal(thrown: unknown): string {
  if (HeedClientError.isInstance(thrown) && thrown.code === 'scope')
    return 'Personal tokens are managed from a signed-in session, not with a personal token. Sign in with your account to see yours.';
  return toChatError(thrown).message;
}

export function TokensPage() {
  const { client } = useConsole();
  const [tokens, setTokens] = useState<PersonalToken[]>();
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<PersonalTokenCreated>();
  const [notice, setNotice] = useState<string>();
  const listHeading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    client.listTokens().then(setTokens, (thrown: unknown) => setError(refusal(thrown)));
  }, [client]);

  function onCreated(token: PersonalTokenCreated) {
    const { token: _secret, ...listed } = token;
    setTokens((before) => [listed, ...(before ?? [])]);
    setCreated(token);
    setNotice(undefined);
  }

  async function revoke(token: PersonalToken) {
    await client.revokeToken(token.id);
    setTokens((before) => before?.filter((item) => item.id !== token.id));
    if (created?.id === token.id) setCreated(undefined);
    setNotice(`Revoked “${token.name}”. Anything using it is refused from now on.`);
    listHeading.current?.focus();
  }

  return (
    <section className="page tokens" aria-labelledby="tokens-title">
      <h1 id="tokens-title">Tokens</h1>
      <p className="muted">
        Personal tokens let your scripts and the terminal act as you, within the scopes you give them. Send one as{' '}
        <code>Authorization: Bearer</code>.
      </p>
      {error && (
        <p className="banner" role="alert">
          {error}
        </p>
      )}
      {created && <NewSecret token={created} onDone={() => setCreated(undefined)} />}
      <h2 id="tokens-list-title" ref={listHeading} tabIndex={-1}>
        Your tokens
      </h2>
      <p className="tokens-notice" role="status">
        {notice}
      </p>
      {tokens === undefined ? (
        !error && <p className="muted">Loading…</p>
      ) : tokens.length === 0 ? (
        <p className="muted">You have no tokens yet.</p>
      ) : (
        <ul className="tokens-list" aria-labelledby="tokens-list-title">
          {tokens.map((token) => (
            <TokenRow key={token.id} token={token} onRevoke={() => revoke(token)} />
          ))}
        </ul>
      )}
      {!error && <TokenForm onCreated={onCreated} />}
    </section>
  );
}

function TokenForm({ onCreated }: { onCreated: (token: PersonalTokenCreated) => void }) {
  const { client, operator } = useConsole();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ReadonlySet<PersonalTokenScope>>(new Set(['read', 'answer']));
  const [lapses, setLapses] = useState<(typeof LAPSES)[number]['value']>('90');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const id = useId();
  // The admin scope is only an admin's to give (the server refuses it to anyone else).
  const offered = SCOPES.filter(({ scope }) => scope !== 'admin' || operator);

  function toggle(scope: PersonalTokenScope) {
    setScopes((before) => {
      const next = new Set(before);
      if (next.has(scope)) next.delete(scope);
      else next.add(scope);
      return next;
    });
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const chosen = offered.map(({ scope }) => scope).filter((scope) => scopes.has(scope));
    if (!name.trim()) return setError('Name the token after where it will be used.');
    if (chosen.length === 0) return setError('Choose at least one scope.');
    setBusy(true);
    setError(undefined);
    try {
      onCreated(
        await client.createToken({
          name: name.trim(),
          scopes: chosen,
          ...(lapses === 'never' ? {} : { expiresInDays: Number(lapses) }),
        }),
      );
      setName('');
    } catch (thrown) {
      setError(refusal(thrown));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="tokens-form" aria-labelledby={`${id}-title`} onSubmit={(event) => void submit(event)} noValidate>
      <h2 id={`${id}-title`}>Make a token</h2>
      <label className="tokens-field">
        Name
        <input
          value={name}
          onChange={(event) => setName(event.target.value)}
          maxLength={80}
          placeholder="e.g. laptop terminal"
          autoComplete="off"
          aria-describedby={error ? `${id}-error` : undefined}
        />
      </label>
      <fieldset className="tokens-scopes">
        <legend>Scopes</legend>
        {offered.map(({ scope, hint }) => (
          <label key={scope} className="tokens-scope">
            <input type="checkbox" checked={scopes.has(scope)} onChange={() => toggle(scope)} />
            <span>
              <strong>{scope}</strong> <span className="muted">{hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <label className="tokens-field">
        Lapses
        <select value={lapses} onChange={(event) => setLapses(event.target.value as typeof lapses)}>
          {LAPSES.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p id={`${id}-error`} className="inbox-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="heed-button heed-primary" disabled={busy}>
        {busy ? 'Making…' : 'Make token'}
      </button>
    </form>
  );
}

/** The secret of the token just made: shown this once, ready to copy. */
function NewSecret({ token, onDone }: { token: PersonalTokenCreated; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string>();
  const id = useId();
  // The keyboard goes to the secret, selected, so it can be copied at once.
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, [token.id]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(token.token);
      setCopied('Copied.');
    } catch {
      field.current?.select();
      setCopied('Copying was refused here: the token is selected, press Ctrl+C (⌘C).');
    }
  }

  return (
    <section className="tokens-secret" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Your new token “{token.name}”</h2>
      <p>Copy it now: it will not be shown again.</p>
      <div className="tokens-secret-row">
        <label htmlFor={`${id}-value`} className="visually-hidden">
          New token
        </label>
        <input
          id={`${id}-value`}
          ref={field}
          readOnly
          value={token.token}
          spellCheck={false}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" className="heed-button heed-primary" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p className="tokens-copied" role="status">
        {copied}
      </p>
      <button type="button" className="heed-button heed-quiet" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

function TokenRow({ token, onRevoke }: { token: PersonalToken; onRevoke: () => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const cancel = useRef<HTMLButtonElement>(null);
  const revokeButton = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  const id = useId();

  // Asking moves the keyboard to the safe choice; backing out brings it back to Revoke.
  useEffect(() => {
    if (confirming) cancel.current?.focus();
    else if (asked.current) revokeButton.current?.focus();
    asked.current = confirming;
  }, [confirming]);

  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      await onRevoke();
    } catch (thrown) {
      setError(toChatError(thrown).message);
      setBusy(false);
    }
  }

  const lapsed = token.expiresAt !== null && Date.parse(token.expiresAt) <= Date.now();
  return (
    <li className="tokens-item" aria-labelledby={`${id}-name`}>
      <div className="tokens-item-head">
        <h3 id={`${id}-name`}>{token.name}</h3>
        <ul className="tokens-chips" aria-label="Scopes">
          {token.scopes.map((scope) => (
            <li key={scope}>{scope}</li>
          ))}
        </ul>
      </div>
      <dl className="tokens-dates">
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={token.createdAt}>{day(token.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{token.lastUsedAt ? <time dateTime={token.lastUsedAt}>{ago(token.lastUsedAt)}</time> : 'Never'}</dd>
        </div>
        <div>
          <dt>{lapsed ? 'Lapsed' : 'Lapses'}</dt>
          <dd>{token.expiresAt ? <time dateTime={token.expiresAt}>{day(token.expiresAt)}</time> : 'Never'}</dd>
        </div>
      </dl>
      {confirming ? (
        <div
          className="tokens-confirm"
          role="group"
          aria-label={`Revoke ${token.name}?`}
          onKeyDown={(event) => event.key === 'Escape' && setConfirming(false)}
        >
          <p>Revoke “{token.name}”? Anything using it is refused at once.</p>
          <button type="button" className="heed-button heed-danger" disabled={busy} onClick={() => void confirm()}>
            Yes, revoke
          </button>
          <button
            type="button"
            ref={cancel}
            className="heed-button"
            disabled={busy}
            onClick={() => setConfirming(false)}
          >
            Keep it
          </button>
        </div>
      ) : (
        <button
          type="button"
          ref={revokeButton}
          className="heed-button heed-danger tokens-revoke"
          aria-label={`Revoke ${token.name}`}
          onClick={() => setConfirming(true)}
        >
          Revoke
        </button>
      )}
      {error && (
        <p className="inbox-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}
