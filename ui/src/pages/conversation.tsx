import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { ActionCard, buildTranscript, byWhom, ownsConversation, SettledCard, useConversation, useHeedUser, type TranscriptItem } from 'heed/react';
import type { ConversationView } from 'heed/client';
import { useConsole } from '../console.js';
import { anonymousConversationIds } from '../session.js';

/** One conversation: the transcript, and below it either the request waiting on you or the message box. */
export function ConversationPage({ conversationId }: { conversationId: string }) {
  const me = useHeedUser();
  const chat = useConversation(conversationId, { trustClientTools: (conversation) => startedHere(conversation, me) });
  const { agents, refreshConversations } = useConsole();
  const agent = agents.find((candidate) => candidate.name === chat.conversation?.agent);
  const transcript = useMemo(() => buildTranscript(chat.messages, chat.streaming, chat.queued), [chat.messages, chat.streaming, chat.queued]);
  const pending = chat.pendingActions;
  const current = pending[0];
  const scrollRef = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const status = chat.conversation?.status;

  // Keep the newest message in view as the transcript grows, and when the dock grows or shrinks,
  // unless the person scrolled up to read.
  useEffect(() => {
    const element = scrollRef.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [transcript, current?.id]);
  useEffect(() => {
    const element = scrollRef.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (pinned.current) element.scrollTop = element.scrollHeight;
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [chat.status]);

  // The sidebar's status follows the conversation's.
  useEffect(() => {
    if (status) void refreshConversations();
  }, [status]);

  // "Someone answered first" notes stay until the next message is sent.
  const [notesSeen, setNotesSeen] = useState(0);
  const allLost = Object.entries(chat.answeredElsewhere);
  const lost = allLost.slice(notesSeen);

  if (chat.status === 'error' && !chat.conversation) {
    return (
      <section className="page">
        <h1>Conversation not found</h1>
        <p className="banner" role="alert">
          {chat.error?.message}
        </p>
      </section>
    );
  }

  return (
    <section className="chat" aria-labelledby="chat-title">
      <header className="chat-head">
        <div>
          <h1 id="chat-title">{chat.conversation?.agent ?? 'Loading…'}</h1>
          {agent?.description && <p className="muted agent-description">{agent.description}</p>}
        </div>
        <p className={`status status-${status ?? 'idle'}`} role="status">
          {status === 'requires_action' ? 'Waiting for you' : status === 'running' || chat.running ? 'Working…' : ''}
        </p>
      </header>

      <div
        className="transcript-scroll"
        ref={scrollRef}
        onScroll={(event) => {
          const element = event.currentTarget;
          pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
        }}
      >
        {chat.hasEarlierMessages && (
          <p className="load-earlier muted">
            <button type="button" className="heed-button" onClick={() => void chat.loadEarlier()}>
              Show earlier messages
            </button>
          </p>
        )}
        <ol className="transcript" aria-label="Messages">
          {chat.status === 'ready' && transcript.length === 0 && (
            <li className="muted empty">Say hello to start. {agent?.capabilities.intake ? 'The agent asks a few questions first.' : ''}</li>
          )}
          {transcript.map((item) => (
            <TranscriptEntry key={`${item.type}:${item.id}`} item={item} me={me} />
          ))}
        </ol>
      </div>

      <div className="dock">
        {lost.length > 0 && (
          <p className="heed-notice" role="status">
            {lost.map(([id, info]) => (
              <span key={id}>
                Already {info.status ?? 'answered'}
                {byWhom(info, me)} before your answer arrived.{' '}
              </span>
            ))}
          </p>
        )}
        {chat.error && (
          <p className="banner" role="alert">
            {chat.error.message}{' '}
            <button type="button" className="heed-link" onClick={chat.clearError}>
              Dismiss
            </button>
          </p>
        )}
        {chat.conversation?.channel ? (
          <p className="heed-notice" role="status">
            This conversation happens in {chat.conversation.channel}
            {current ? ', where a request is waiting for an answer' : ''}. Continue it there.
          </p>
        ) : current ? (
          <div className="dock-card" aria-label="Waiting for your answer" role="region">
            {pending.length > 1 && <p className="muted dock-count">Request 1 of {pending.length}</p>}
            <ActionCard
              key={current.id}
              action={current}
              busy={chat.submitting.includes(current.id)}
              autoFocus
              clientToolRun={chat.clientTools[current.id]}
              onRunClientTool={() => chat.runClientTool(current.id)}
              onSubmit={(resolution) => chat.answer(current.id, resolution)}
            />
          </div>
        ) : (
          <Composer
            disabled={chat.status !== 'ready'}
            running={chat.running || status === 'running'}
            queues={agent?.busyPolicy === 'queue'}
            sending={chat.sending}
            onSend={(content) => {
              setNotesSeen(allLost.length);
              return chat.send(content);
            }}
            onStop={chat.cancel}
          />
        )}
      </div>
    </section>
  );
}

function TranscriptEntry({ item, me }: { item: TranscriptItem; me: string | null }) {
  switch (item.type) {
    case 'user':
      return item.queued ? (
        <li className="message message-user message-queued">
          <span className="visually-hidden">You (queued, waiting for the agent): </span>
          {item.text}
          <span className="queued-note" aria-hidden="true">
            Queued{item.queued > 1 ? ` · ${item.queued}` : ''}
          </span>
        </li>
      ) : (
        <li className="message message-user">
          <span className="visually-hidden">You: </span>
          {item.text}
        </li>
      );
    case 'assistant':
      return (
        <li className="message message-assistant" aria-busy={item.streaming || undefined}>
          <span className="visually-hidden">Agent: </span>
          {item.text}
          {item.streaming && <span className="cursor" aria-hidden="true" />}
        </li>
      );
    case 'tool':
      return (
        <li className="message message-tool">
          <details>
            <summary>
              <span className="heed-chip heed-tool-name">{item.toolName}</span>
              {item.output ? (item.output.type === 'error-text' ? ' failed' : ' ran') : ' called'}
            </summary>
            <pre className="heed-code">{JSON.stringify(item.input, null, 2)}</pre>
            {item.output && <pre className="heed-code">{typeof item.output.value === 'string' ? item.output.value : JSON.stringify(item.output.value, null, 2)}</pre>}
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

function Composer({
  disabled,
  running,
  queues,
  sending,
  onSend,
  onStop,
}: {
  disabled: boolean;
  running: boolean;
  /** The agent queues a message sent while it works (busyPolicy 'queue'): the box stays open then. */
  queues: boolean;
  sending: boolean;
  onSend: (content: string) => Promise<{ ok: boolean }>;
  onStop: () => Promise<void>;
}) {
  const [text, setText] = useState('');
  const ref = useRef<HTMLTextAreaElement>(null);

  // The box comes back when a request was answered: put the keyboard back in it.
  useEffect(() => {
    if (document.activeElement === document.body || document.activeElement === null) ref.current?.focus();
  }, []);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    const content = text.trim();
    if (!content || sending || (running && !queues)) return;
    setText('');
    const result = await onSend(content);
    if (!result.ok) setText(content);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  }

  return (
    <form className="composer" onSubmit={submit}>
      <label htmlFor="composer-text" className="visually-hidden">
        Message
      </label>
      <textarea
        id="composer-text"
        ref={ref}
        rows={2}
        value={text}
        placeholder={running && queues ? 'Queue a message…' : 'Write a message… (Enter sends, Shift+Enter for a new line)'}
        disabled={disabled}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {running && queues && (
        <button type="submit" className="heed-button heed-primary" disabled={disabled || sending || text.trim() === ''}>
          Queue
        </button>
      )}
      {running ? (
        <button type="button" className="heed-button" onClick={() => void onStop()}>
          Stop
        </button>
      ) : (
        <button type="submit" className="heed-button heed-primary" disabled={disabled || sending || text.trim() === ''}>
          Send
        </button>
      )}
    </form>
  );
}

/**
 * Page tools (they read the text selected in the console) run on their own only in the viewer's own
 * conversation: one they own, or an ownerless one this browser started. Anyone with its id may open
 * an ownerless conversation, so a link to someone else's asks before sending them anything.
 */
function startedHere(conversation: ConversationView, me: string | null): boolean {
  return ownsConversation(conversation, me) || (conversation.ownerId === null && anonymousConversationIds().includes(conversation.id));
}
