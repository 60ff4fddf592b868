import { createContext, useContext } from 'react';
import type { AgentInfo, ConversationView, HeedClient } from 'heed/client';
import type { Session } from './session.js';

/* What the console's pages share: its context and how a time reads. */

interface ConsoleContextValue {
  session: Session;
  client: HeedClient;
  /** Undefined until the server has listed them. */
  agents: AgentInfo[] | undefined;
  /** The caller's conversations, newest first; undefined until first read. */
  conversations: ConversationView[] | undefined;
  /** The caller is one of `notify.operators` (`GET /api/me`): the Queue page is theirs. */
  operator: boolean;
  /** Whose delegation the caller holds (`GET /api/me/delegation`): they may answer in those people's place. */
  standsFor: string[];
  setStandsFor: (ids: string[]) => void;
  refreshConversations: () => Promise<void>;
  startConversation: (agent: string) => Promise<void>;
  signOut: () => void;
}

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole needs the console around it.');
  return value;
}

export function shortTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const today = new Date().toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

/** How long ago, in words a person reads at a glance: "just now", "5 min ago", "3 h ago", "2 days ago". */
export function ago(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (Number.isNaN(seconds)) return '';
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  const days = Math.floor(seconds / 86_400);
  return days === 1 ? 'yesterday' : days < 30 ? `${days} days ago` : shortTime(iso);
}

/** What a conversation is called: its title, else its agent's name. */
export function conversationName(conversation: Pick<ConversationView, 'title' | 'agent'>): string {
  return conversation.title ?? conversation.agent;
}
