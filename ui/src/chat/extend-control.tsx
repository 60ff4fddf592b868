import { useId, useState } from 'react';

/** The choices a person picks from: the request then lapses this long from now (docs/approvals.md). */
const CHOICES = [
  { minutes: 60, label: '1 hour' },
  { minutes: 240, label: '4 hours' },
  { minutes: 1440, label: '1 day' },
  { minutes: 4320, label: '3 days' },
];

export type ExtendOutcome = { ok: true; expiresAt?: string } | { ok: false; message: string };

/**
 * When a waiting request lapses, and an Extend control beside it: pick how long from now it should wait,
 * press Extend (`POST …/actions/{actionId}/extend`). The server's refusal (past `hitl.maxExtendMinutes`,
 * an earlier deadline) is shown as its sentence.
 */
export function ExtendControl({
  expiresAt,
  onExtend,
}: {
  expiresAt: string | undefined;
  onExtend: (minutes: number) => Promise<ExtendOutcome>;
}) {
  const id = useId();
  const [minutes, setMinutes] = useState(CHOICES[1].minutes);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean }>();
  if (!expiresAt) return null;
  const extend = async () => {
    setBusy(true);
    setMessage(undefined);
    const outcome = await onExtend(minutes);
    setBusy(false);
    if (outcome.ok) {
      const until = outcome.expiresAt ? new Date(outcome.expiresAt).toLocaleString() : 'no deadline';
      setMessage({ text: `Extended: it now waits until ${until}.`, error: false });
    } else setMessage({ text: outcome.message, error: true });
  };
  return (
    <div className="extend-control" role="group" aria-label="Deadline">
      <span className="muted">
        Lapses <time dateTime={expiresAt}>{new Date(expiresAt).toLocaleString()}</time> if nobody answers.
      </span>
      <label htmlFor={id} className="muted">
        Wait until
      </label>
      <select id={id} value={minutes} disabled={busy} onChange={(event) => setMinutes(Number(event.target.value))}>
        {CHOICES.map((choice) => (
          <option key={choice.minutes} value={choice.minutes}>
            {choice.label} from now
          </option>
        ))}
      </select>
      <button type="button" className="heed-button" disabled={busy} onClick={() => void extend()}>
        {busy ? 'Extending…' : 'Extend'}
      </button>
      {message && (
        <span className={message.error ? 'inbox-error' : 'muted'} role={message.error ? 'alert' : 'status'}>
          {message.text}
        </span>
      )}
    </div>
  );
}
