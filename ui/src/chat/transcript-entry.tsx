import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { SettledCard, type TranscriptItem } from 'heed/react';

/** What a message may offer: branching from an assistant message, editing a user message (a web chat only). */
export interface MessageControls {
  busy: boolean;
  onBranch?: (messageId: string) => void;
  onEdit?: (messageId: string, text: string) => void;
}

/** One entry of the transcript: a message (with its Branch or Edit control), a tool call, or a settled request. */
export function TranscriptEntry({
  item,
  me,
  controls,
}: {
  item: TranscriptItem;
  me: string | null;
  controls: MessageControls;
}) {
  switch (item.type) {
    case 'user':
      // A queued message has no id the server knows yet: nothing to edit or branch from.
      if (item.queued)
        return (
          <li className="message-row message-row-user">
            <div className="message message-user message-queued">
              <span className="visually-hidden">You (queued, waiting for the agent): </span>
              {item.text}
              <span className="queued-note" aria-hidden="true">
                Queued{item.queued > 1 ? ` · ${item.queued}` : ''}
              </span>
            </div>
          </li>
        );
      return <UserMessage id={item.id} text={item.text} controls={controls} />;
    case 'assistant':
      return (
        <li className="message-row message-row-assistant">
          <div className="message message-assistant" aria-busy={item.streaming || undefined}>
            <span className="visually-hidden">Agent: </span>
            {item.text}
            {item.streaming && <span className="cursor" aria-hidden="true" />}
          </div>
          {controls.onBranch && !item.streaming && (
            <div className="message-controls">
              <button
                type="button"
                className="heed-link"
                disabled={controls.busy}
                onClick={() => controls.onBranch!(item.id)}
              >
                Branch from here
              </button>
            </div>
          )}
        </li>
      );
    case 'tool':
      return (
        <li className="message message-tool">
          <details>
            <summary>
              <span className="heed-chip heed-tool-name">{item.toolName}</span>
              {item.notRun ? (
                <>
                  {` ${item.notRun.reason}`}
                  {item.notRun.comment && <span className="tool-comment">: “{item.notRun.comment}”</span>}
                </>
              ) : item.output ? (
                item.output.type === 'error-text' ? (
                  ' failed'
                ) : (
                  ' ran'
                )
              ) : (
                ' called'
              )}
            </summary>
            <pre className="heed-code">{JSON.stringify(item.input, null, 2)}</pre>
            {item.output && (
              <pre className="heed-code">
                {typeof item.output.value === 'string' ? item.output.value : JSON.stringify(item.output.value, null, 2)}
              </pre>
            )}
          </details>
        </li>
      );
    case 'action':
      return (
        <li className="message message-action">
          <SettledCard action={item.action} me={me} />
        </li>
      );
  }
}

/** A user message; in a web chat, Edit turns it into a box whose text starts a new chat from just before it. */
function UserMessage({ id, text, controls }: { id: string; text: string; controls: MessageControls }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);
  const box = useRef<HTMLTextAreaElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (editing) box.current?.focus();
  }, [editing]);

  const close = () => {
    setEditing(false);
    setDraft(text);
    requestAnimationFrame(() => editButton.current?.focus());
  };
  const send = () => {
    const content = draft.trim();
    if (content) controls.onEdit?.(id, content);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') close();
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  if (editing) {
    const fieldId = `edit-${id}`;
    return (
      <li className="message-row message-row-user">
        <form
          className="message-edit"
          onSubmit={(event) => {
            event.preventDefault();
            send();
          }}
        >
          <label htmlFor={fieldId}>Edit your message</label>
          <textarea
            id={fieldId}
            ref={box}
            rows={3}
            value={draft}
            disabled={controls.busy}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={onKeyDown}
          />
          <p className="heed-hint">
            Sends it in a new chat that starts just before this message; this chat stays as it is.
          </p>
          <div className="heed-actions">
            <button type="submit" className="heed-button heed-primary" disabled={controls.busy || draft.trim() === ''}>
              Send in a new chat
            </button>
            <button type="button" className="heed-button" disabled={controls.busy} onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      </li>
    );
  }
  return (
    <li className="message-row message-row-user">
      <div className="message message-user">
        <span className="visually-hidden">You: </span>
        {text}
      </div>
      {controls.onEdit && (
        <div className="message-controls">
          <button
            type="button"
            ref={editButton}
            className="heed-link"
            disabled={controls.busy}
            onClick={() => setEditing(true)}
          >
            Edit
          </button>
        </div>
      )}
    </li>
  );
}
