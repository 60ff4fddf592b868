import { useState } from 'react';
import { useConsole } from '../console.js';
import { isSignedIn } from '../session.js';

const CAPABILITIES: Array<[keyof import('heed/client').AgentInfo['capabilities'], string]> = [
  ['intake', 'Intake questions'],
  ['questions', 'Asks questions'],
  ['toolApproval', 'Asks for approval'],
  ['clientTools', 'Page tools'],
];

/** Start a conversation with any agent. */
export function HomePage() {
  const { agents, startConversation, session } = useConsole();
  const [starting, setStarting] = useState<string>();
  const [error, setError] = useState<string>();
  return (
    <section className="page" aria-labelledby="home-title">
      <h1 id="home-title">Start a conversation</h1>
      {!isSignedIn(session) && (
        <p className="muted">
          You are anonymous: conversations you start are kept in this browser, and anyone with their address can answer
          them.
        </p>
      )}
      {error && (
        <p className="banner" role="alert">
          {error}
        </p>
      )}
      {agents === undefined && (
        <p className="muted" role="status">
          Loading agents…
        </p>
      )}
      {agents?.length === 0 && <p className="muted">This server has no agents.</p>}
      <ul className="agent-grid">
        {(agents ?? []).map((agent) => (
          <li key={agent.name} className="agent-card">
            <h2>{agent.name}</h2>
            {agent.description && <p>{agent.description}</p>}
            <p className="chips">
              {CAPABILITIES.filter(([key]) => agent.capabilities[key]).map(([key, label]) => (
                <span key={key} className="heed-chip">
                  {label}
                </span>
              ))}
            </p>
            <button
              type="button"
              className="heed-button heed-primary"
              disabled={starting !== undefined}
              aria-label={`Start a conversation with ${agent.name}`}
              onClick={async () => {
                setStarting(agent.name);
                setError(undefined);
                try {
                  await startConversation(agent.name);
                } catch (thrown) {
                  setError(thrown instanceof Error ? thrown.message : String(thrown));
                } finally {
                  setStarting(undefined);
                }
              }}
            >
              {starting === agent.name ? 'Starting…' : 'Start'}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
