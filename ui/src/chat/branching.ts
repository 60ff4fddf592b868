import { useState } from 'react';
import { rememberStartedConversation } from 'heed/react';
import type { ConversationView, HeedClient } from 'heed/client';
import type { MessageView } from 'heed/react';
import { useConsole } from '../console.js';
import { navigate } from '../router.js';
import { isSignedIn, rememberAnonymousConversation, type Session } from '../session.js';

export interface Branching {
  /** True while a branch is being made (or its first message sent). */
  busy: boolean;
  /** Why the last branch or edit did not go through. */
  error?: string;
  clearError(): void;
  /** Copies the conversation (up to and including `fromMessageId`, else all of it) into a new chat, and opens it. */
  branch(fromMessageId?: string): Promise<void>;
  /** Branches up to just before the user message `messageId`, sends `text` there instead, and opens the new chat. */
  edit(messageId: string, text: string): Promise<void>;
}

/** A new conversation this console made: listed in the sidebar, and trusted to run page tools (it was started here). */
function remember(created: ConversationView, session: Session): void {
  rememberStartedConversation(created.id);
  if (!isSignedIn(session)) rememberAnonymousConversation(created.id);
}

/** The message just before `messageId`, read from the server when the page holds none before it. */
async function messageBefore(
  client: HeedClient,
  conversationId: string,
  messages: MessageView[],
  messageId: string,
): Promise<MessageView | undefined> {
  const index = messages.findIndex((message) => message.id === messageId);
  if (index > 0) return messages[index - 1];
  const earlier = await client.getConversation(conversationId, { before: messageId, limit: 1 });
  return earlier.messages.at(-1);
}

/**
 * Branch and edit (seed 000): both make a new private conversation with `POST …/branch`, so the original
 * stays as it was (and a channel's thread hears nothing of it).
 */
export function useBranching(conversation: ConversationView | undefined, messages: MessageView[]): Branching {
  const { client, session, refreshConversations } = useConsole();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  async function run(make: () => Promise<ConversationView>, then?: (created: ConversationView) => Promise<void>) {
    if (!conversation || busy) return;
    setBusy(true);
    setError(undefined);
    let created: ConversationView | undefined;
    try {
      created = await make();
      remember(created, session);
      await then?.(created);
      await refreshConversations();
      navigate(`/c/${encodeURIComponent(created.id)}`);
    } catch (thrown) {
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      setError(created ? `The new chat was made, but your message was not sent: ${message}` : message);
      if (created) await refreshConversations();
    } finally {
      setBusy(false);
    }
  }

  return {
    busy,
    error,
    clearError: () => setError(undefined),
    branch: (fromMessageId) => run(() => client.branch(conversation!.id, fromMessageId ? { fromMessageId } : {})),
    edit: (messageId, text) =>
      run(
        async () => {
          const before = await messageBefore(client, conversation!.id, messages, messageId);
          // Nothing came before the first message: the edited one starts a fresh chat with the same agent.
          if (before) return client.branch(conversation!.id, { fromMessageId: before.id });
          return client.createConversation({
            agent: conversation!.agent,
            metadata: { ...(conversation!.metadata ?? {}), branchedFrom: conversation!.id },
          });
        },
        async (created) => {
          // Sent once the server has recorded it; the turn goes on and the new chat's page follows it live.
          const stream = client.sendStream(created.id, text);
          await stream.next();
          await stream.return(undefined);
        },
      ),
  };
}
