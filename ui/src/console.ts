import { createContext, useContext } from 'react';
import type { AgentInfo, ConversationView, HeedClient } from 'heed/client';
import type { Session } from './session.js';

/* What the console's pages share: its context and how a time reads. */

interface ConsoleContextValue {
  session: Session;
  client: HeedClient;
  agents: AgentInfo[];
  conversations: ConversationView[];
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
  return today ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
}
