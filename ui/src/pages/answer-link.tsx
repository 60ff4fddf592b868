import { useCallback, useEffect, useState } from 'react';
import type { ActionView } from 'heed/client';
import { ActionCard, SettledCard, settledHeadline, type AnswerResult } from 'heed/react';

/** An action of any kind without `conversationId` and `messageId`, which a link does not show. */
type LinkAction<View = ActionView> = View extends ActionView ? Omit<View, 'conversationId' | 'messageId'> : never;

/** What `GET /api/links/<token>` answers. */
interface LinkRead {
  action: LinkAction;
  agent: string;
  recipient: string | null;
  expiresAt: string;
}

type State = { status: 'loading' } | { status: 'invalid'; message: string } | { status: 'ready'; link: LinkRead };

/** A one-click choice the link carried (`?choice=allow`, `?q=size&v=l`), as a resolution to confirm. */
function pickedChoice(action: LinkRead['action']): { label: string; resolution: Record<string, unknown> } | undefined {
  const params = new URLSearchParams(window.location.search);
  const choice = params.get('choice');
  if (action.kind === 'approval' && (choice === 'allow' || choice === 'deny')) {
    return { label: choice === 'allow' ? 'Approve' : 'Deny', resolution: { type: 'approval', decision: choice } };
  }
  const questionId = params.get('q');
  const value = params.get('v');
  const question = action.kind === 'question' ? action.questions.find((entry) => entry.id === questionId) : undefined;
  const option = question?.options?.find((entry) => entry.value === value);
  if (action.kind === 'question' && question && option) {
    return { label: `Answer “${option.label}” to “${question.prompt}”`, resolution: { type: 'question', answers: { [question.id]: option.value } } };
  }
  return undefined;
}

/**
 * The page an answer link opens (`/a/<token>`): one action, no sign-in. Loading it never answers;
 * every button here POSTs to `/api/links/<token>`. A choice picked in the mail or chat message is
 * shown first, taken with one click; the full card below lets the person answer otherwise.
 */
export function AnswerLinkPage({ token }: { token: string }) {
  const [state, setState] = useState<State>({ status: 'loading' });
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string>();
  const [problem, setProblem] = useState<string>();
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
        const body = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string; details?: Record<string, unknown> } };
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
        return { ok: false, error: { code: 'network', message: thrown instanceof Error ? thrown.message : String(thrown) } };
      } finally {
        setBusy(false);
      }
    },
    [api, load],
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
  const action: ActionView = { ...link.action, conversationId: '', messageId: '' };
  const pending = action.status === 'pending';
  const picked = pending ? pickedChoice(link.action) : undefined;
  return (
    <main className="link-page" aria-labelledby="link-title">
      <header className="link-head">
        <span className="brand">Heed</span>
        <h1 id="link-title">{pending ? `${link.agent} is waiting for your answer` : `${link.agent}: ${settledHeadline(action)}`}</h1>
        {link.recipient && <p className="muted">For {link.recipient}</p>}
      </header>
      {notice && (
        <p className="link-notice" role="status">
          {notice}
        </p>
      )}
      {problem && (
        <p className="banner" role="alert">
          {problem}
        </p>
      )}
      {picked && (
        <section className="link-choice" aria-label="Your choice">
          <button
            type="button"
            className="heed-button heed-primary"
            disabled={busy}
            onClick={() => void submit(picked.resolution).then((result) => setProblem(result.ok ? undefined : result.error.message))}
          >
            {picked.label}
          </button>
          <p className="muted">Or answer differently below.</p>
        </section>
      )}
      {pending ? <ActionCard action={action} onSubmit={submit} busy={busy} autoFocus={!picked} /> : <SettledCard action={action} />}
      {pending && <p className="muted link-foot">This link works until {new Date(link.expiresAt).toLocaleString()}.</p>}
    </main>
  );
}
