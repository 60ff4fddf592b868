import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { ActionView } from '../../views.js';
import type { AnswerResult, ClientToolRun } from '../state/conversation-store.js';
import { ApprovalCard } from './approval-card.js';
import { ClientToolCard } from './client-tool-card.js';
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

/** The card for a pending action, whatever its kind. */
export function ActionCard({ action, onSubmit, busy, autoFocus, clientToolRun, onRunClientTool }: ActionCardProps) {
  switch (action.kind) {
    case 'question':
      return <QuestionCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />;
    case 'approval':
      return <ApprovalCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />;
    case 'url':
      return <UrlCard action={action} onSubmit={onSubmit} busy={busy} autoFocus={autoFocus} />;
    case 'client_tool':
      return <ClientToolCard action={action} run={clientToolRun} onSubmit={onSubmit} onRun={onRunClientTool} busy={busy} />;
  }
}
