import { useState } from 'react';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { AlreadyAnswered, AnswerResult, ChatError } from '../state/conversation-store.js';
import { byWhom } from '../state/transcript.js';

/** The sentence a card shows when someone else (another tab, channel or the time limit) got there first. */
export function alreadyAnsweredNotice(settled: AlreadyAnswered): string {
  return `This was already ${settled.status ?? 'answered'}${byWhom(settled)}.`;
}

export interface AnswerSender {
  /** True while an answer is on its way. */
  sending: boolean;
  /** What the card says about the last answer that did not go through. */
  notice?: string;
  /**
   * Sends an answer. When it is refused, `onError` may take the server's error (and return true, e.g.
   * to show it beside a field); otherwise the card shows its sentence. An answer that came too late
   * always says who answered first.
   */
  send(resolution: ResolutionInput, onError?: (error: ChatError) => boolean): Promise<void>;
}

/** What every card does with an answer: send it, say it is on its way, and say why it did not go through. */
export function useAnswerSender(onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>): AnswerSender {
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState<string>();
  async function send(resolution: ResolutionInput, onError?: (error: ChatError) => boolean) {
    setSending(true);
    setNotice(undefined);
    const result = await onSubmit(resolution);
    setSending(false);
    if (result.ok) return;
    if (result.alreadyAnswered) setNotice(alreadyAnsweredNotice(result.alreadyAnswered));
    else if (!onError?.(result.error)) setNotice(result.error.message);
  }
  return { sending, notice, send };
}

/** A card's notice, read out as soon as it appears. */
export function AnswerNotice({ text }: { text?: string }) {
  if (!text) return null;
  return (
    <p className="heed-notice" role="alert">
      {text}
    </p>
  );
}
