import { useEffect, useState } from 'react';
import { HeedClientError, type QueueView } from 'heed/client';
import { ago, useConsole } from '../console.js';

/*
 * The operators' view of the people who answer: what waits and for how long, and how long answers take
 * (GET /api/queue), drawn as small bars so a glance tells whether the queue is healthy.
 */

type Waits = Omit<QueueView, 'days' | 'agents'>;

const REFRESH_MS = 15_000;

/** A duration in the unit a person reads at a glance: "45 s", "12 min", "3.5 h", "2 days". */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${(seconds / 3600).toFixed(seconds < 36_000 ? 1 : 0)} h`;
  const days = seconds / 86_400;
  return `${days.toFixed(days < 10 ? 1 : 0)} days`;
}

export function QueuePage() {
  const { client } = useConsole();
  const [queue, setQueue] = useState<QueueView>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let stopped = false;
    const read = () =>
      client.queue().then(
        (view) => !stopped && (setQueue(view), setError(undefined)),
        (thrown: unknown) =>
          !stopped &&
          setError(
            HeedClientError.isInstance(thrown) && thrown.status === 403
              ? 'Only the operators named in notify.operators can see the queue.'
              : thrown instanceof Error
                ? thrown.message
                : String(thrown),
          ),
      );
    void read();
    const timer = setInterval(() => void read(), REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [client]);

  return (
    <section className="page queue" aria-labelledby="queue-title">
      <h1 id="queue-title">Queue</h1>
      {error && (
        <p className="banner" role="alert">
          {error}
        </p>
      )}
      {!queue && !error && (
        <p className="muted" role="status">
          Loading…
        </p>
      )}
      {queue && (
        <>
          <Tiles waits={queue} days={queue.days} />
          <h2>Waiting for how long</h2>
          <Aging waits={queue} />
          <h2>By agent</h2>
          {queue.agents.length === 0 ? (
            <p className="muted">Nothing has waited for anyone in the last {queue.days} days.</p>
          ) : (
            <AgentRows agents={queue.agents} />
          )}
        </>
      )}
    </section>
  );
}

function Tiles({ waits, days }: { waits: Waits; days: number }) {
  return (
    <>
      <dl className="queue-tiles">
        <div>
          <dt>Waiting</dt>
          <dd>{waits.pending}</dd>
        </div>
        <div>
          <dt>Oldest waiting</dt>
          <dd>{waits.oldestCreatedAt ? ago(waits.oldestCreatedAt) : '—'}</dd>
        </div>
        <div>
          <dt>Median to decision</dt>
          <dd>{duration(waits.medianSeconds)}</dd>
        </div>
        <div>
          <dt>90% decided within</dt>
          <dd>{duration(waits.p90Seconds)}</dd>
        </div>
      </dl>
      <p className="muted queue-window">
        {waits.decisions} {waits.decisions === 1 ? 'answer' : 'answers'} from people in the last {days} days
      </p>
    </>
  );
}

/** One bar split by age: under a day, 1–3 days, 3–7 days, over 7 days. */
function Aging({ waits }: { waits: Waits }) {
  const parts = [
    { label: 'Under a day', count: waits.pending - waits.over1Day, tone: 'queue-fresh' },
    { label: '1–3 days', count: waits.over1Day - waits.over3Days, tone: 'queue-aging' },
    { label: '3–7 days', count: waits.over3Days - waits.over7Days, tone: 'queue-old' },
    { label: 'Over 7 days', count: waits.over7Days, tone: 'queue-stale' },
  ];
  if (waits.pending === 0) return <p className="muted">Nothing is waiting.</p>;
  return (
    <figure className="queue-ages">
      <div
        className="queue-stack"
        role="img"
        aria-label={parts.map((part) => `${part.label}: ${part.count}`).join(', ')}
      >
        {parts
          .filter((part) => part.count > 0)
          .map((part) => (
            <span
              key={part.tone}
              className={`queue-segment ${part.tone}`}
              style={{ flexGrow: part.count }}
              title={`${part.label}: ${part.count}`}
            />
          ))}
      </div>
      <figcaption className="queue-legend">
        {parts.map((part) => (
          <span key={part.tone}>
            <i className={`queue-swatch ${part.tone}`} aria-hidden="true" /> {part.label} <b>{part.count}</b>
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

function AgentRows({ agents }: { agents: QueueView['agents'] }) {
  const mostWaiting = Math.max(1, ...agents.map((agent) => agent.pending));
  const longest = Math.max(1, ...agents.map((agent) => agent.p90Seconds ?? 0));
  return (
    <ul className="queue-agents">
      {agents.map((agent) => (
        <li key={agent.agent} className="queue-agent">
          <h3>{agent.agent}</h3>
          <Bar label="Waiting" value={agent.pending} max={mostWaiting} text={String(agent.pending)} />
          <Bar label="Median" value={agent.medianSeconds ?? 0} max={longest} text={duration(agent.medianSeconds)} />
          <Bar label="90%" value={agent.p90Seconds ?? 0} max={longest} text={duration(agent.p90Seconds)} />
          <p className="muted">
            {agent.oldestCreatedAt ? `oldest asked ${ago(agent.oldestCreatedAt)}` : 'nothing waiting'} ·{' '}
            {agent.decisions} {agent.decisions === 1 ? 'answer' : 'answers'}
          </p>
        </li>
      ))}
    </ul>
  );
}

function Bar({ label, value, max, text }: { label: string; value: number; max: number; text: string }) {
  return (
    <div className="queue-bar">
      <span className="queue-bar-label">{label}</span>
      <span className="queue-bar-track" aria-hidden="true">
        <span className="queue-bar-fill" style={{ width: `${Math.round((value / max) * 100)}%` }} />
      </span>
      <span className="queue-bar-value">{text}</span>
    </div>
  );
}
