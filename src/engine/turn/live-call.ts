import { must } from '../../errors.js';
import type { ActionRecord, ActionRequest } from '../../types.js';

type Outcome = { value: unknown } | { error: unknown };

/**
 * A tool call that keeps running in memory while it waits for a person (an MCP server's elicitation
 * lives on its connection, so the tool cannot be re-run). The turn pauses; the answer is handed to
 * the waiting request when the turn resumes in this process. If the process restarts meanwhile, the
 * call is lost and fails with an error the model reads.
 */
export class LiveCall {
  run!: Promise<Outcome>;
  private raised: Array<{
    request: ActionRequest;
    expiresInMinutes?: number;
    resolve: (action: ActionRecord) => void;
  }> = [];
  private wake: (() => void) | undefined;
  /** Journal index of the next request (one per `ctx.askLive` call, in call order). */
  private count = 0;
  /** The request now waiting for its answer, with its journal index. */
  waiting: { index: number; resolve: (action: ActionRecord) => void } | undefined;

  start(execute: () => unknown): void {
    this.run = Promise.resolve()
      .then(execute)
      .then(
        (value) => ({ value }),
        (error) => ({ error }),
      );
  }

  /** Called by the tool: resolves with the settled action once a person answered. */
  ask(request: ActionRequest, expiresInMinutes?: number): Promise<ActionRecord> {
    return new Promise((resolve) => {
      this.raised.push({ request, expiresInMinutes, resolve });
      this.wake?.();
    });
  }

  /** Waits until the tool finishes or asks something. */
  async next(): Promise<Outcome | { ask: ActionRequest; index: number; expiresInMinutes?: number }> {
    const raised = new Promise<void>((resolve) => (this.wake = resolve));
    if (this.raised.length === 0) {
      const first = await Promise.race([this.run, raised.then(() => undefined)]);
      if (first) return first;
    }
    const entry = must(this.raised.shift(), 'The tool raised a request before it woke the turn.');
    const index = this.count++;
    this.waiting = { index, resolve: entry.resolve };
    return { ask: entry.request, index, expiresInMinutes: entry.expiresInMinutes };
  }

  /** Hands the settled action to the waiting request. */
  answer(action: ActionRecord): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(action);
  }
}
