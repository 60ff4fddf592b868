import { useSyncExternalStore } from 'react';
import { registerToolCard, type ToolCardProps } from 'heed/react';
import { pageSelection, subscribePageSelection } from '../client-tools.js';

/**
 * The console's card for `page` client tools, registered by client kind through heed/react's card
 * registry (the one an embedding app uses): the built-in card, and, while it asks before running in a
 * conversation not started here, the text the tool would send, so the person sees what they share.
 */
export function PageToolCard({ action, clientToolRun, builtIn }: ToolCardProps) {
  const text = useSyncExternalStore(subscribePageSelection, pageSelection, pageSelection);
  if (clientToolRun?.state !== 'needs_confirmation') return builtIn;
  return (
    <div className="page-tool-card">
      {builtIn}
      <figure className="page-tool-preview" aria-label={`What ${action.toolName} would send`}>
        <figcaption className="heed-hint">
          What {action.toolName} would send: the text last selected in this console
        </figcaption>
        {text ? (
          <blockquote>{text}</blockquote>
        ) : (
          <p className="muted">Nothing is selected: it would send an empty text.</p>
        )}
      </figure>
    </div>
  );
}

/** Registers the console's own cards. */
export function installConsoleCards(): () => void {
  return registerToolCard('page', PageToolCard);
}
