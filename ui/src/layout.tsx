import { useEffect, useRef, useState, type RefObject } from 'react';
import type { ConversationView } from 'heed/client';
import { useInbox } from 'heed/react';
import { conversationName, shortTime, useConsole } from './console.js';
import { Link } from './router.js';
import { isSignedIn, type Session } from './session.js';

/*
 * The console's frame: the top bar and the conversation list. On a wide screen the list is a sidebar;
 * on a narrow one (under 760 px) it is a drawer the top bar's menu button opens, over the page.
 */

export function TopBar({
  path,
  menuOpen,
  menuButtonRef,
  onMenu,
}: {
  path: string;
  menuOpen: boolean;
  menuButtonRef: RefObject<HTMLButtonElement | null>;
  onMenu: () => void;
}) {
  const { session, signOut, operator, refreshConversations } = useConsole();
  const inbox = useInbox({ intervalMs: 5000 });
  const { refresh } = inbox;
  useEffect(() => {
    void refresh();
  }, [path, refresh]);
  // A request leaving the inbox (answered here, elsewhere, or lapsed) changes its conversation's status in the list.
  const pendingIds = inbox.actions.map((action) => action.id).join(' ');
  const seenIds = useRef(pendingIds);
  useEffect(() => {
    if (seenIds.current === pendingIds) return;
    seenIds.current = pendingIds;
    void refreshConversations();
  }, [pendingIds, refreshConversations]);
  const waiting = isSignedIn(session) ? inbox.actions.length : 0;
  return (
    <header className="topbar">
      <button
        type="button"
        ref={menuButtonRef}
        className="menu-button heed-button heed-quiet"
        aria-expanded={menuOpen}
        aria-controls="sidebar"
        onClick={onMenu}
      >
        <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
          <path d="M3 5h14M3 10h14M3 15h14" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        </svg>
        <span className="visually-hidden">Conversations</span>
      </button>
      <Link to="/" className="brand">
        Heed
      </Link>
      <nav aria-label="Main" className="topnav">
        <Link to="/" className="topnav-home" aria-current={path === '/' ? 'page' : undefined}>
          Conversations
        </Link>
        <Link to="/inbox" aria-current={path === '/inbox' ? 'page' : undefined}>
          Inbox
          {waiting > 0 && (
            <span className="count" aria-label={`, ${waiting} waiting`}>
              {waiting}
            </span>
          )}
        </Link>
        {operator && (
          <Link to="/queue" aria-current={path === '/queue' ? 'page' : undefined}>
            Queue
          </Link>
        )}
        {isSignedIn(session) && (
          <Link to="/tokens" className="topnav-tokens" aria-current={path === '/tokens' ? 'page' : undefined}>
            Tokens
          </Link>
        )}
      </nav>
      <span className="who">{whoText(session)}</span>
      <button type="button" className="heed-button heed-quiet sign-out" onClick={signOut}>
        {isSignedIn(session) ? 'Sign out' : 'Sign in'}
      </button>
    </header>
  );
}

function whoText(session: Session): string {
  return isSignedIn(session) ? `Signed in${session.userId ? ` as ${session.userId}` : ''}` : 'Anonymous';
}

const STATUS_WORDS: Record<string, string> = { requires_action: 'Waiting', running: 'Working', idle: '' };

/** Conversations found by a search: the server's `q` when signed in, else the ones this browser keeps. */
function useSearch(query: string): { found: ConversationView[] | undefined; searching: boolean } {
  const { client, session, conversations } = useConsole();
  const [found, setFound] = useState<ConversationView[]>();
  const [searching, setSearching] = useState(false);
  const text = query.trim();
  useEffect(() => {
    if (!text) {
      setFound(undefined);
      return;
    }
    if (!isSignedIn(session)) {
      const lower = text.toLowerCase();
      setFound(
        (conversations ?? []).filter((item) => `${item.title ?? ''}\n${item.agent}`.toLowerCase().includes(lower)),
      );
      return;
    }
    const stop = new AbortController();
    setSearching(true);
    // A pause in typing before asking the server; each new letter drops the question before.
    const timer = setTimeout(() => {
      client.listConversations({ q: text.slice(0, 100), limit: 100, signal: stop.signal }).then(
        (list) => (setFound(list), setSearching(false)),
        () => !stop.signal.aborted && (setFound([]), setSearching(false)),
      );
    }, 200);
    return () => {
      clearTimeout(timer);
      stop.abort();
    };
  }, [text, client, session, conversations]);
  return { found: text ? found : undefined, searching: Boolean(text) && searching };
}

export function Sidebar({
  activeId,
  open,
  onClose,
}: {
  activeId?: string;
  open: boolean;
  onClose: (returnFocus: boolean) => void;
}) {
  const { conversations, session } = useConsole();
  const [query, setQuery] = useState('');
  const { found, searching } = useSearch(query);
  const searchRef = useRef<HTMLInputElement>(null);
  const shown = found ?? conversations;

  // Opened as a drawer: the keyboard goes into it; Escape closes it and goes back to the menu button.
  useEffect(() => {
    if (!open) return;
    searchRef.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose(true);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, onClose]);

  return (
    <>
      <nav id="sidebar" className="sidebar" data-open={open || undefined} aria-label="Conversations">
        <Link to="/" className="heed-button heed-primary new-conversation">
          New conversation
        </Link>
        <div className="search">
          <label htmlFor="conversation-search" className="visually-hidden">
            Search conversations
          </label>
          <input
            id="conversation-search"
            ref={searchRef}
            type="search"
            placeholder="Search by title or agent"
            maxLength={100}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
        </div>
        <ConversationList conversations={shown} activeId={activeId} query={query.trim()} searching={searching} />
        <p className="who who-in-menu">{whoText(session)}</p>
        {/* On a phone the top bar has no room for it: the menu has it, beside who is signed in. */}
        {isSignedIn(session) && (
          <Link to="/tokens" className="tokens-in-menu">
            Tokens
          </Link>
        )}
      </nav>
      {open && <div className="backdrop" aria-hidden="true" onClick={() => onClose(false)} />}
    </>
  );
}

function ConversationList({
  conversations,
  activeId,
  query,
  searching,
}: {
  conversations?: ConversationView[];
  activeId?: string;
  query: string;
  searching: boolean;
}) {
  if (conversations === undefined || (searching && conversations.length === 0)) {
    return (
      <p className="muted list-note" role="status">
        {query ? 'Searching…' : 'Loading conversations…'}
      </p>
    );
  }
  if (conversations.length === 0) {
    return (
      <p className="muted list-note" role="status">
        {query ? `No conversation matches “${query}”.` : 'No conversations yet.'}
      </p>
    );
  }
  return (
    <ul className="conversation-list" aria-label={query ? `Conversations matching “${query}”` : 'Your conversations'}>
      {conversations.map((conversation) => (
        <li key={conversation.id}>
          <Link
            to={`/c/${encodeURIComponent(conversation.id)}`}
            aria-current={conversation.id === activeId ? 'page' : undefined}
            className="conversation-link"
          >
            <span className="conversation-title">{conversationName(conversation)}</span>
            {STATUS_WORDS[conversation.status] && (
              <span className={`status status-${conversation.status}`}>{STATUS_WORDS[conversation.status]}</span>
            )}
            <span className="conversation-meta">
              {conversation.title ? `${conversation.agent} · ` : ''}
              {shortTime(conversation.updatedAt)}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
