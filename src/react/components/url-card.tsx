import { useEffect, useId, useRef, useState } from 'react';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import { isAllowedUrl } from '../../kinds/url.js';
import type { UrlActionView } from '../../views.js';
import type { AnswerResult } from '../state/conversation-store.js';
import { AnswerNotice, useAnswerSender } from './answer-notice.js';

export interface UrlCardProps {
  /** A pending `url` action. */
  action: UrlActionView;
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  busy?: boolean;
  autoFocus?: boolean;
  /** How the page is opened (default: a new tab without access to this one). */
  open?: (url: string) => void;
}

const openInNewTab = (url: string) => void globalThis.open?.(url, '_blank', 'noopener,noreferrer');

/**
 * Asks the person to open a page. The whole address is shown, and the page opens only when they
 * click; then they say whether they did what it asked.
 */
export function UrlCard({ action, onSubmit, busy = false, autoFocus = false, open = openInNewTab }: UrlCardProps) {
  const base = useId();
  const url = action.url ?? '';
  const allowed = isAllowedUrl(url);
  const [opened, setOpened] = useState(false);
  const sender = useAnswerSender(onSubmit);
  const rootRef = useRef<HTMLElement>(null);
  const disabled = busy || sender.sending;

  useEffect(() => {
    // The card itself takes the focus: a stray Enter must not open the page.
    if (autoFocus) rootRef.current?.focus();
    // Only when the card appears.
  }, []);

  const decide = (decision: 'accept' | 'decline' | 'cancel') => sender.send({ type: 'url', decision });

  let host = '';
  try {
    host = new URL(url).host;
  } catch {
    host = '';
  }
  return (
    <section
      ref={rootRef}
      tabIndex={-1}
      className="heed-card heed-url-card"
      aria-labelledby={`${base}-title`}
      aria-busy={disabled}
    >
      <div className="heed-card-head">
        <h3 id={`${base}-title`} className="heed-card-title">
          {action.title || 'Open a page'}
        </h3>
        {host && <span className="heed-chip">{host}</span>}
      </div>
      {action.message && <p className="heed-description">{action.message}</p>}
      <p className="heed-url" id={`${base}-url`}>
        <span className="heed-url-label">Address</span>
        <code>{url}</code>
      </p>
      {!allowed && (
        <p className="heed-notice" role="alert">
          This address is not a web page (only http and https open here).
        </p>
      )}
      <AnswerNotice text={sender.notice} />
      <div className="heed-actions">
        <button
          type="button"
          className={opened ? 'heed-button' : 'heed-button heed-primary'}
          disabled={disabled || !allowed}
          aria-describedby={`${base}-url`}
          onClick={() => {
            open(url);
            setOpened(true);
          }}
        >
          Open page
        </button>
        <button
          type="button"
          className={opened ? 'heed-button heed-primary' : 'heed-button'}
          disabled={disabled || !allowed}
          onClick={() => void decide('accept')}
        >
          Done
        </button>
        <span className="heed-spacer" />
        <button
          type="button"
          className="heed-button heed-quiet"
          disabled={disabled}
          onClick={() => void decide('decline')}
        >
          Decline
        </button>
        <button
          type="button"
          className="heed-button heed-quiet"
          disabled={disabled}
          onClick={() => void decide('cancel')}
        >
          Not now
        </button>
      </div>
      <p className="heed-hint">The page opens in a new tab. Choose Done once you have finished there.</p>
    </section>
  );
}
