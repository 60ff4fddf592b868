import type { ActionView, ResolutionInput } from '../../client/index.js';
import type { Settled } from './inbox-state.js';
import type { InboxSystem } from './system.js';

/** What every view of one request gets from the list; a view of one kind takes its kind's `View`. */
export interface RequestViewProps<View extends ActionView = ActionView> {
  action: View;
  /** The agent of its conversation, when known. */
  agent?: string;
  /** Sends an answer; resolves with the action as stored, or throws the server's refusal (`HeedClientError`). */
  send(resolution: ResolutionInput): Promise<ActionView>;
  system: InboxSystem;
  /** Set once it stopped waiting while open here (someone else answered, it lapsed): the view turns read-only. */
  settled?: Settled;
  /** Lines the view may use. */
  rows: number;
  columns: number;
  now: number;
  /** Called with the action as stored once an answer here was accepted. */
  onAnswered(stored: ActionView): void;
  /** Called when the server says someone else was first, or it lapsed. */
  onSettled(settled: Settled): void;
  onBack(): void;
  /** Shows the key help (`?`, when the view is not taking typed text). */
  onHelp?(): void;
}
