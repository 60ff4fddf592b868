import {
  ActionCard,
  channelPlatform,
  toChatError,
  WaitingCard,
  whoDecides,
  type UseConversationResult,
} from 'heed/react';
import type { ActionView } from 'heed/client';
import type { Branching } from './branching.js';
import { useConsole } from '../console.js';
import { ExtendControl } from './extend-control.js';

/**
 * The requests waiting in a conversation, split by who answers them here: those the viewer may answer
 * (the first docked as a card), and those others decide (the requester of a four-eyes approval, someone
 * not named, a vote already given), shown read-only with whom they wait on.
 */
export function splitPending(
  pending: ActionView[],
  me: string | null,
  ownerId: string | null | undefined,
  standsFor: string[] = [],
) {
  const mine: ActionView[] = [];
  const others: Array<{ action: ActionView; note: string; reason?: string }> = [];
  for (const action of pending) {
    const who = whoDecides(action, { me, ownerId, standsFor });
    if (who.mayAnswer) mine.push(action);
    else others.push({ action, note: who.waitingFor ?? 'Waiting for someone else', reason: who.reason });
  }
  return { mine, others };
}

/** The chat's head status: "Waiting for you", or whom it waits on when the viewer cannot answer. */
export function waitingStatus(
  pending: ActionView[],
  me: string | null,
  ownerId: string | null | undefined,
  channel: string | null | undefined,
  standsFor: string[] = [],
): string {
  const platform = channelPlatform(channel);
  if (platform) return `Waiting for an answer in ${platform}`;
  const { mine, others } = splitPending(pending, me, ownerId, standsFor);
  return mine.length > 0 || others.length === 0 ? 'Waiting for you' : others[0].note;
}

/**
 * The dock of a conversation that waits on someone: a channel conversation's notice (its requests shown
 * as they wait in the channel, and Branch), or the card to answer with, under the requests others decide.
 */
export function PendingDock({
  chat,
  me,
  branching,
  standsFor = [],
}: {
  chat: UseConversationResult;
  me: string | null;
  branching: Branching;
  /** Whose delegation the viewer holds: their votes are the viewer's to give too. */
  standsFor?: string[];
}) {
  const { client } = useConsole();
  const conversation = chat.conversation;
  const pending = chat.pendingActions;
  const platform = channelPlatform(conversation?.channel);
  if (platform) {
    return (
      <div className="channel-dock">
        {pending.map((action) => (
          <WaitingCard key={action.id} action={action} note={`Waiting for an answer in ${platform}`} />
        ))}
        <div className="heed-notice channel-notice" role="note">
          <p>This conversation happens in {platform}. Continue it there, or branch it into a new chat.</p>
          <button
            type="button"
            className="heed-button"
            disabled={branching.busy}
            onClick={() => void branching.branch()}
          >
            Branch
          </button>
        </div>
      </div>
    );
  }
  const { mine, others } = splitPending(pending, me, conversation?.ownerId, standsFor);
  const current = mine[0];
  // Whoever may answer may give the request more time (docs/approvals.md, Reminders and extensions).
  const extend = async (minutes: number) => {
    try {
      const { action } = await client.extend(current.conversationId, current.id, minutes);
      return { ok: true as const, expiresAt: action.expiresAt };
    } catch (thrown) {
      return { ok: false as const, message: toChatError(thrown).message };
    }
  };
  return (
    <>
      {others.map(({ action, note, reason }) => (
        <WaitingCard key={action.id} action={action} note={note} reason={reason} />
      ))}
      {current && (
        <div className="dock-card" aria-label="Waiting for your answer" role="region">
          {mine.length > 1 && <p className="muted dock-count">Request 1 of {mine.length}</p>}
          {current.via?.length ? (
            // A child conversation's request, answered here for it (docs/concepts.md, Agents that call agents).
            <p className="muted dock-via">
              Asked by the agent {current.via.at(-1)!.agent}, working for this conversation
            </p>
          ) : null}
          <ActionCard
            key={current.id}
            action={current}
            busy={chat.submitting.includes(current.id)}
            autoFocus
            clientToolRun={chat.clientTools[current.id]}
            onRunClientTool={() => chat.runClientTool(current.id)}
            onSubmit={(resolution) => chat.answer(current.id, resolution)}
          />
          <ExtendControl key={`${current.id}-extend`} expiresAt={current.expiresAt} onExtend={extend} />
        </div>
      )}
    </>
  );
}
