import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { buildTranscript, byWhom, ownsConversation, useConversation, useHeedUser } from 'heed/react';
import type { ConversationView } from 'heed/client';
import { useBranching } from '../chat/branching.js';
import { PendingDock, waitingStatus } from '../chat/pending-dock.js';
import { TranscriptEntry, type MessageControls } from '../chat/transcript-entry.js';
import { conversationName, useConsole } from '../console.js';
import { anonymousConversationIds } from '../session.js';

/** One conversation: the transcript, and below it either the request waiting on you or the message box. */
export function ConversationPage({ conversationId }: { conversationId: string }) {
  const me = useHeedUser();
  const chat = useConversation(conversationId, { trustClientTools: (conversation) => startedHere(conversation, me) });
  const { agents, refreshConversations, standsFor } = useConsole();
  const agent = agents?.find((candidate) => candidate.name === chat.conversation?.agent);
  const transcript = useMemo(
    () => buildTranscript(chat.messages, chat.streaming, chat.queued),
    [chat.messages, chat.streaming, chat.queued],
  );
  const pending = chat.pendingActions;
  const current = pending[0];
  const scrollRef = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const status = chat.conversation?.status;
  const branching = useBranching(chat.conversation ?? undefined, chat.messages);
  const inChannel = Boolean(chat.conversation?.channel);
  // Branch from any assistant message, Edit the messages of a web chat: in a conversation of your own or
  // an ownerless one (a named approver reading someone else's may vote, not branch: docs/approvals.md);
  // a channel's messages are written there, so they have no Edit.
  const mine = Boolean(
    chat.conversation && (chat.conversation.ownerId === null || !me || chat.conversation.ownerId === me),
  );
  const controls: MessageControls = {
    busy: branching.busy,
    onBranch: mine ? (messageId) => void branching.branch(messageId) : undefined,
    onEdit: mine && !inChannel ? (messageId, text) => void branching.edit(messageId, text) : undefined,
  };

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
  // While a card is docked the transcript keeps its room (styles.css): 46% of the screen, or less when
  // its messages need less, so a short conversation leaves the card the rest.
  useEffect(() => {
    const element = scrollRef.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const keep = () => {
      const content = Array.from(element.children).reduce((sum, child) => sum + (child as HTMLElement).offsetHeight, 0);
      element.style.setProperty('--transcript-keep', `min(46dvh, ${Math.ceil(content)}px)`);
    };
    const observer = new ResizeObserver(keep);
    for (const child of Array.from(element.children)) observer.observe(child);
    keep();
    return () => observer.disconnect();
  }, [chat.status, chat.hasEarlierMessages]);

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
        <div className="chat-heading">
          <h1 id="chat-title">{chat.conversation ? conversationName(chat.conversation) : 'Loading…'}</h1>
          {chat.conversation && (
            <p className="muted agent-description">
              {chat.conversation.title ? <span className="chat-agent">{chat.conversation.agent}</span> : null}
              {chat.conversation.title && agent?.description ? ' · ' : null}
              {agent?.description}
            </p>
          )}
        </div>
        <p className={`status status-${status ?? 'idle'}`} role="status">
          {status === 'requires_action'
            ? waitingStatus(pending, me, chat.conversation?.ownerId, chat.conversation?.channel, standsFor)
            : status === 'running' || chat.running
              ? 'Working…'
              : ''}
        </p>
      </header>
      {chat.connection === 'reconnecting' && (
        <p className="connection-note" role="status">
          Reconnecting… The live connection to the server was cut.
        </p>
      )}

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
          {chat.status === 'loading' && <li className="muted empty">Loading the conversation…</li>}
          {chat.status === 'ready' && transcript.length === 0 && (
            <li className="muted empty">
              Say hello to start. {agent?.capabilities.intake ? 'The agent asks a few questions first.' : ''}
            </li>
          )}
          {transcript.map((item) => (
            <TranscriptEntry key={`${item.type}:${item.id}`} item={item} me={me} controls={controls} />
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
        {branching.error && (
          <p className="banner" role="alert">
            {branching.error}{' '}
            <button type="button" className="heed-link" onClick={branching.clearError}>
              Dismiss
            </button>
          </p>
        )}
        {inChannel || current ? (
          <PendingDock chat={chat} me={me} branching={branching} standsFor={standsFor} />
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
        placeholder={
          running && queues ? 'Queue a message…' : 'Write a message… (Enter sends, Shift+Enter for a new line)'
        }
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
  return (
    ownsConversation(conversation, me) ||
    (conversation.ownerId === null && anonymousConversationIds().includes(conversation.id))
  );
}
