// An app that embeds heed/react and registers its own cards (issue 24, item 15): one by client kind
// (`pick-file`, registered at load), one by tool name (`issue_refund`, registered by a component once
// it is mounted). A request of any other tool gets the built-in card. test/browser/tool-cards.test.ts
// bundles it against the sources and serves it from the server's own origin.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import {
  ActionCard,
  buildTranscript,
  HeedProvider,
  registerToolCard,
  useConversation,
  useToolCard,
  type ToolCardProps,
} from 'heed/react';
import 'heed/react/styles.css';

/** The answer to `pick_file` comes from the person: one press per file, or "None of these". */
function PickFileCard({ action, answer, dismiss, busy, builtIn }: ToolCardProps) {
  const [said, setSaid] = useState<string>();
  if (action.kind !== 'client_tool') return builtIn;
  const files = ((action.args as { files?: string[] }).files ?? []).slice(0, 20);
  return (
    <section className="heed-card pick-file" aria-label="Pick a file">
      <h3 className="heed-card-title">Which file should the agent use?</h3>
      <div className="heed-actions">
        {files.map((file) => (
          <button
            key={file}
            type="button"
            className="heed-button"
            disabled={busy}
            onClick={() =>
              void answer({ type: 'client_tool', output: { file } }).then((result) =>
                setSaid(result.ok ? undefined : result.error.message),
              )
            }
          >
            {file}
          </button>
        ))}
        <button
          type="button"
          className="heed-button heed-quiet"
          disabled={busy}
          onClick={() => void dismiss('No file fits.')}
        >
          None of these
        </button>
      </div>
      {said && <p role="alert">{said}</p>}
    </section>
  );
}
registerToolCard('pick-file', PickFileCard);

/** The app's own refund approval, which can still show Heed's card (to edit the arguments). */
function RefundCard({ action, answer, dismiss, busy, builtIn }: ToolCardProps) {
  const [full, setFull] = useState(false);
  if (full || action.kind !== 'approval') return builtIn;
  const { amount, orderId } = action.args as { amount: number; orderId: number };
  return (
    <section className="heed-card refund" aria-label="Refund request">
      <h3 className="heed-card-title">
        Give back ${amount} for order {orderId}?
      </h3>
      <div className="heed-actions">
        <button
          type="button"
          className="heed-button heed-primary"
          disabled={busy}
          onClick={() => void answer({ type: 'approval', decision: 'allow' })}
        >
          Yes, refund
        </button>
        <button type="button" className="heed-button" disabled={busy} onClick={() => void dismiss('Not this one.')}>
          No
        </button>
        <button type="button" className="heed-button heed-quiet" onClick={() => setFull(true)}>
          Show the usual card
        </button>
      </div>
    </section>
  );
}

function Chat({ id }: { id: string }) {
  useToolCard('issue_refund', RefundCard);
  const chat = useConversation(id);
  const waiting = chat.pendingActions[0];
  return (
    <main>
      <ol aria-label="Messages">
        {buildTranscript(chat.messages, chat.streaming).flatMap((item) =>
          item.type === 'assistant' || item.type === 'user' ? [<li key={item.id}>{item.text}</li>] : [],
        )}
      </ol>
      {waiting && (
        <div role="region" aria-label="Waiting for your answer">
          <ActionCard
            key={waiting.id}
            action={waiting}
            autoFocus
            busy={chat.submitting.includes(waiting.id)}
            clientToolRun={chat.clientTools[waiting.id]}
            onSubmit={(resolution) => chat.answer(waiting.id, resolution)}
          />
        </div>
      )}
    </main>
  );
}

const params = new URLSearchParams(location.search);
createRoot(document.getElementById('root')!).render(
  <HeedProvider baseUrl={location.origin} token={params.get('token') ?? undefined} me={params.get('me')}>
    <Chat id={params.get('c') ?? ''} />
  </HeedProvider>,
);
