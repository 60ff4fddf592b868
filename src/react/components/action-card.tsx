import type { ReactElement } from 'react';
import { byKind, type ByKind } from '../../kinds/index.js';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { ActionView } from '../../views.js';
import type { AnswerResult, ClientToolRun } from '../state/conversation-store.js';
import { ApprovalCard } from './approval-card.js';
import { ClientToolCard } from './client-tool-card.js';
import { GenericCard } from './generic-card.js';
import { QuestionCard } from './question-card.js';
import { dismissalOf, ToolCardBoundary, useRegisteredCard } from './tool-cards.js';
import { UrlCard } from './url-card.js';

export interface ActionCardProps {
  /** A pending action of any kind. */
  action: ActionView;
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  busy?: boolean;
  autoFocus?: boolean;
  /** For a client tool: how this page's handler is doing. */
  clientToolRun?: ClientToolRun;
  /** The answer a one-click link chose (`oneClickChoiceOf(…).confirm`), for a card that marks it and asks to confirm it (an approval's `allow` or `deny`). */
  confirm?: string;
  /** For a client tool waiting for the person's go-ahead: runs this page's handler (`useConversation().runClientTool`). */
  onRunClientTool?: () => void;
}

/** The card of each kind that has its own; a kind without one gets the generic card (its title, summary and choices). */
const cards: ByKind<ReactElement, [props: ActionCardProps]> = {
  question: (action, { onSubmit, busy, autoFocus }) => (
    <QuestionCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />
  ),
  approval: (action, { onSubmit, busy, autoFocus, confirm }) => (
    <ApprovalCard
      action={action}
      onSubmit={onSubmit}
      busy={busy}
      autoFocus={autoFocus}
      chosen={confirm === 'allow' || confirm === 'deny' ? confirm : undefined}
    />
  ),
  url: (action, { onSubmit, busy, autoFocus }) => (
    <UrlCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />
  ),
  client_tool: (action, { clientToolRun, onSubmit, onRunClientTool, busy }) => (
    <ClientToolCard action={action} run={clientToolRun} onSubmit={onSubmit} onRun={onRunClientTool} busy={busy} />
  ),
};

/** The built-in card for a pending action, whatever its kind. */
export function BuiltInCard(props: ActionCardProps) {
  return byKind(
    cards,
    (action, { onSubmit, busy, autoFocus }) => (
      <GenericCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />
    ),
    props.action,
    props,
  );
}

/**
 * The card for a pending action, whatever its kind: the card registered for its tool name or client
 * kind (`registerToolCard`, `HeedProvider`'s `toolCards`), else the built-in one.
 *
 * @example
 * ```tsx
 * {pendingActions.map((action) => <ActionCard key={action.id} action={action} onSubmit={(resolution) => answer(action.id, resolution)} />)}
 * ```
 */
export function ActionCard(props: ActionCardProps) {
  const Registered = useRegisteredCard(props.action);
  const builtIn = <BuiltInCard {...props} />;
  if (!Registered) return builtIn;
  const { action, onSubmit } = props;
  const dismiss = (note?: string): Promise<AnswerResult> => {
    const resolution = dismissalOf(action, note);
    return resolution
      ? onSubmit(resolution)
      : Promise.resolve({
          ok: false as const,
          error: {
            code: 'invalid_resolution',
            message: 'This kind of request cannot be dismissed; answer it instead.',
          },
        });
  };
  return (
    <ToolCardBoundary key={action.id} fallback={builtIn} toolName={action.toolName}>
      <Registered
        action={action}
        answer={onSubmit}
        dismiss={dismiss}
        busy={props.busy ?? false}
        autoFocus={props.autoFocus ?? false}
        clientToolRun={props.clientToolRun}
        runClientTool={props.onRunClientTool}
        builtIn={builtIn}
      />
    </ToolCardBoundary>
  );
}
