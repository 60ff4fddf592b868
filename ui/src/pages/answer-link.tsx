import { useCallback, useEffect, useState } from 'react';
import type { ActionView, ErrorBody } from 'heed/client';
import { ActionCard, describeResolution, oneClickChoiceOf, SettledCard, type AnswerResult } from 'heed/react';
import { ExtendControl, type ExtendOutcome } from '../chat/extend-control.js';

/** An action of any kind without `conversationId` and `messageId`, which a link does not show. */
type LinkAction<View = ActionView> = View extends ActionView ? Omit<View, 'conversationId' | 'messageId'> : never;

/** What `GET /api/links/<token>` answers. */
interface LinkRead {
  action: LinkAction;
  agent: string;
  recipient: string | null;
  requester: string | null;
  requestedIn?: string;
  expiresAt: string;
}

type State = { status: 'loading' } | { status: 'invalid'; message: string } | { status: 'ready'; link: LinkRead };

/** Who asked and who answers, in a line: "Requested by ada · agent refunds · for grace@example.com". */
function WhoAsks({ link }: { link: LinkRead }) {
  return (
    <p className="link-who">
      {link.requester ? (
        <>
          Requested by <strong>{link.requester}</strong>
        </>
      ) : (
        <>Requested {link.requestedIn ? `in a ${link.requestedIn} thread` : 'by someone not signed in'}</>
      )}
      {' · '}agent <strong>{link.agent}</strong>
      {link.recipient && <> · for {link.recipient}</>}
    </p>
  );
}

/**
 * The page an answer link opens (`/a/<token>`): one action, no sign-in, one card. Loading it never answers;
 * every button POSTs to `/api/links/<token>`. A link made for one choice (the mail's Approve, Deny or an
 * option) opens the card with that choice picked and marked, to confirm with one press.
 */
export function AnswerLinkPage({ token: opened }: { token: string }) {
  // An extension signs a new link that lasts as long as the new deadline: the page goes on with it.
  const [token, setToken] = useState(opened);
  const [state, setState] = useState<State>({ status: 'loading' });
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string>();
  const api = `/api/links/${encodeURIComponent(token)}`;

  const load = useCallback(async () => {
    const response = await fetch(api, { headers: { accept: 'application/json' } }).catch(() => undefined);
    if (!response?.ok) {
      const body = (await response?.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
      setState({ status: 'invalid', message: body?.error?.message ?? 'This link could not be opened.' });
      return;
    }
    setState({ status: 'ready', link: (await response.json()) as LinkRead });
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  const submit = useCallback(
    async (resolution: unknown): Promise<AnswerResult> => {
      setBusy(true);
      try {
        const response = await fetch(api, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ resolution }),
        });
        const body = (await response.json().catch(() => ({}))) as Partial<ErrorBody>;
        if (response.ok) {
          setNotice('Thank you: your answer was recorded.');
          await load();
          return { ok: true };
        }
        const error = {
          code: body.error?.code ?? 'error',
          message: body.error?.message ?? `The answer was not recorded (HTTP ${response.status}).`,
          status: response.status,
          details: body.error?.details,
        };
        if (error.code === 'action_not_pending' || error.code === 'action_expired') await load();
        return { ok: false, error };
      } catch (thrown) {
        return {
          ok: false,
          error: { code: 'network', message: thrown instanceof Error ? thrown.message : String(thrown) },
        };
      } finally {
        setBusy(false);
      }
    },
    [api, load],
  );

  const extend = useCallback(
    async (minutes: number): Promise<ExtendOutcome> => {
      const response = await fetch(`${api}/extend`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ minutes }),
      }).catch(() => undefined);
      const body = (await response?.json().catch(() => undefined)) as
        { action?: { expiresAt?: string }; page?: string; error?: { message?: string } } | undefined;
      if (!response?.ok) return { ok: false, message: body?.error?.message ?? 'The request could not be extended.' };
      if (body?.page) {
        const next = new URL(body.page, window.location.href);
        window.history.replaceState(null, '', `${next.pathname}${window.location.search}`);
        setToken(next.pathname.split('/').at(-1) ?? token);
      } else await load();
      return { ok: true, expiresAt: body?.action?.expiresAt };
    },
    [api, load, token],
  );

  if (state.status === 'loading') {
    return (
      <main className="link-page">
        <p className="muted">Loading…</p>
      </main>
    );
  }
  if (state.status === 'invalid') {
    return (
      <main className="link-page">
        <h1>Heed</h1>
        <p className="banner" role="alert">
          {state.message}
        </p>
      </main>
    );
  }
  const { link } = state;
  const action = { ...link.action, conversationId: '', messageId: '' } as ActionView;
  const pending = action.status === 'pending';
  // The choice the link was made for (the mail's Approve, Deny or an option), picked on the card to confirm.
  const choice = pending ? oneClickChoiceOf(action, new URLSearchParams(window.location.search)) : undefined;
  return (
    <main className="link-page" aria-labelledby="link-title">
      <header className="link-head">
        <span className="brand">Heed</span>
        <h1 id="link-title">
          {pending ? `${link.agent} is waiting for your answer` : `${link.agent}: ${describeResolution(action)}`}
        </h1>
        <WhoAsks link={link} />
      </header>
      {notice && (
        <p className="link-notice" role="status">
          {notice}
        </p>
      )}
      {choice && !choice.confirm && (
        <p className="link-choice-note">
          You chose “{choice.label}” in the message. It is selected below: confirm it, or pick another answer.
        </p>
      )}
      {!pending ? (
        <SettledCard action={action} />
      ) : (
        <ActionCard action={choice?.view ?? action} onSubmit={submit} busy={busy} autoFocus confirm={choice?.confirm} />
      )}
      {pending && <ExtendControl expiresAt={action.expiresAt} onExtend={extend} />}
      {pending && <p className="muted link-foot">This link works until {new Date(link.expiresAt).toLocaleString()}.</p>}
    </main>
  );
}
