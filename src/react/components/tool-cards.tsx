import {
  Component,
  createContext,
  useContext,
  useEffect,
  useSyncExternalStore,
  type ComponentType,
  type ErrorInfo,
  type ReactElement,
  type ReactNode,
} from 'react';
import { byKind, type ByKind } from '../../kinds/index.js';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { ActionView } from '../../views.js';
import type { AnswerResult, ClientToolRun } from '../state/conversation-store.js';

/** What a card registered for a tool gets: what the built-in cards get, and the built-in card itself. */
export interface ToolCardProps {
  /** The pending action: an approval, a question, a client tool call… of the tool the card is registered for. */
  action: ActionView;
  /** Sends an answer (`{ type: <the action's kind>, … }`); resolves once the server recorded it, or with its refusal. */
  answer: (resolution: ResolutionInput) => Promise<AnswerResult>;
  /**
   * Declines the request the way its kind declines: a question is dismissed, an approval denied (with
   * `note` as the comment), a client tool answered with an error (`note`, else "Dismissed by the user."),
   * a page to open declined.
   */
  dismiss: (note?: string) => Promise<AnswerResult>;
  /** True while an answer is on its way. */
  busy: boolean;
  /** The card is the one the person should answer now: take the focus. */
  autoFocus: boolean;
  /** For a client tool: how this page's handler is doing (`useConversation().clientTools[action.id]`). */
  clientToolRun?: ClientToolRun;
  /** For a client tool waiting for the person's go-ahead: runs this page's handler. */
  runClientTool?: () => void;
  /** The card Heed shows for this action, to show around your own or instead of it. */
  builtIn: ReactElement;
}

/** A component that renders an action of one tool (or one client kind) in place of the built-in card. */
export type ToolCard = ComponentType<ToolCardProps>;

/** Cards by tool name or client kind, as the client tool handlers are registered. */
export interface ToolCardRegistry {
  /** Registers a card for a tool name (`issue_refund`) or a client tool's `client.kind` (`pick-file`); returns a function that removes it. */
  register(name: string, card: ToolCard): () => void;
  /** The card for an action: by its tool name first, then (a client tool) by its client kind. */
  find(action: Pick<ActionView, 'kind' | 'toolName'> & { clientKind?: string }): ToolCard | undefined;
  /** Calls `listener` when a card is registered or removed (so a card registered after the first render shows). */
  subscribe(listener: () => void): () => void;
  /** Changes whenever a card is registered or removed. */
  version(): number;
}

export function createToolCardRegistry(): ToolCardRegistry {
  const cards = new Map<string, ToolCard>();
  const listeners = new Set<() => void>();
  let version = 0;
  const changed = () => {
    version++;
    for (const listener of [...listeners]) listener();
  };
  return {
    register(name, card) {
      cards.set(name, card);
      changed();
      return () => {
        if (cards.get(name) !== card) return;
        cards.delete(name);
        changed();
      };
    },
    find(action) {
      return (
        cards.get(action.toolName) ??
        (action.kind === 'client_tool' && action.clientKind ? cards.get(action.clientKind) : undefined)
      );
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    version: () => version,
  };
}

/** The registry cards are looked up in unless a `HeedProvider` is given its own (`toolCards`). */
export const defaultToolCards: ToolCardRegistry = createToolCardRegistry();

/**
 * Registers the card that shows a tool's requests, by tool name or by a client tool's `client.kind`.
 * Returns a function that removes it.
 */
export function registerToolCard(name: string, card: ToolCard): () => void {
  return defaultToolCards.register(name, card);
}

export const ToolCardsContext = createContext<ToolCardRegistry>(defaultToolCards);

/** The registry of the nearest `HeedProvider` that was given one, else the default. */
export function useToolCards(): ToolCardRegistry {
  return useContext(ToolCardsContext);
}

/** Registers a card while the component is mounted, in the nearest provider's registry. */
export function useToolCard(name: string, card: ToolCard): void {
  const registry = useToolCards();
  useEffect(() => registry.register(name, card), [registry, name, card]);
}

/** The registered card for an action, kept current as cards are registered and removed. */
export function useRegisteredCard(action: ActionView): ToolCard | undefined {
  const registry = useToolCards();
  useSyncExternalStore(registry.subscribe, registry.version, registry.version);
  return registry.find(action as ActionView & { clientKind?: string });
}

/** How each kind declines, for a card's `dismiss`; a kind left out cannot be declined that way. */
const dismissals: ByKind<ResolutionInput | undefined, [note: string | undefined]> = {
  question: () => ({ type: 'question', dismiss: true }),
  approval: (_action, note) => ({
    type: 'approval',
    decision: 'deny',
    ...(note?.trim() ? { comment: note.trim() } : {}),
  }),
  client_tool: (_action, note) => ({ type: 'client_tool', error: note?.trim() || 'Dismissed by the user.' }),
  url: () => ({ type: 'url', decision: 'decline' }),
};

/** The answer that declines `action`, or undefined for a kind that has none. */
export function dismissalOf(action: ActionView, note?: string): ResolutionInput | undefined {
  return byKind(dismissals, () => undefined, action, note);
}

/** Shows the built-in card when the registered one throws while rendering, so a broken card never hides a request. */
export class ToolCardBoundary extends Component<
  { fallback: ReactElement; children: ReactNode; toolName: string },
  { failed: boolean }
> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error(
      `The card registered for ${this.props.toolName} failed; showing the built-in card.`,
      error,
      info.componentStack,
    );
  }

  render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
