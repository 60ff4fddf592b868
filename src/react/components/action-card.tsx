import type { ReactElement } from 'react';
import { byKind, type ByKind } from '../../kinds/index.js';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { ActionView } from '../../views.js';
import type { AnswerResult, ClientToolRun } from '../state/conversation-store.js';
import { ApprovalCard } from './approval-card.js';
import { ClientToolCard } from './client-tool-card.js';
import { GenericCard } from './generic-card.js';
import { QuestionCard } from './question-card.js';
import { UrlCard } from './url-card.js';

export interface ActionCardProps {
  /** A pending action of any kind. */
  action: ActionView;
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  busy?: boolean;
  autoFocus?: boolean;
  /** For a client tool: how this page's handler is doing. */
  clientToolRun?: ClientToolRun;
  /** For a client tool waiting for the person's go-ahead: runs this page's handler (`useConversation().runClientTool`). */
  onRunClientTool?: () => void;
}

/** The card of each kind that has its own; a kind without one gets the generic card (its title, summary and choices). */
const cards: ByKind<ReactElement, [props: ActionCardProps]> = {
  question: (action, { onSubmit, busy, autoFocus }) => <QuestionCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />,
  approval: (action, { onSubmit, busy, autoFocus }) => <ApprovalCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />,
  url: (action, { onSubmit, busy, autoFocus }) => <UrlCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />,
  client_tool: (action, { clientToolRun, onSubmit, onRunClientTool, busy }) => (
    <ClientToolCard action={action} run={clientToolRun} onSubmit={onSubmit} onRun={onRunClientTool} busy={busy} />
  ),
};

/** The card for a pending action, whatever its kind. */
export function ActionCard(props: ActionCardProps) {
  return byKind(cards, (action, { onSubmit, busy, autoFocus }) => <GenericCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />, props.action, props);
}
