import type { TurnResult } from '../engine/turn/run-turn.js';
import type { FollowFlow } from '../engine/follow.js';
import type { HeedHooks } from '../hooks.js';
import type { EventRecord } from '../types.js';
import { sseResponse, type SseOptions, type SseWriter } from './sse.js';

/** What a message or an answer reports once its request is recorded. */
export interface Recorded {
  eventSeq: number;
  /** False for an answer that leaves other actions of the pause open: no turn runs. */
  closesPause?: boolean;
}

const TERMINAL = new Set<EventRecord['type']>(['turn.paused', 'turn.completed', 'turn.cancelled', 'turn.failed']);

/** Sends an event of the log as SSE: name = type, id = seq, data = the event as JSON. */
export function sendEvent(writer: SseWriter, event: EventRecord): void {
  writer.send({ event: event.type, id: event.seq, data: JSON.stringify(event) });
}

/**
 * Runs a message or an answer. As JSON: waits for the turn and returns its outcome. As SSE: once the
 * request is recorded, streams every event it causes from the log (no gaps, no duplicates) and ends
 * with `turn.done` carrying the same outcome. Errors before anything is recorded are ordinary JSON
 * errors. The turn runs detached from the response: a client that disconnects does not stop it.
 */
export async function turnResponse(
  host: HeedHooks,
  conversationId: string,
  run: (onRecorded: (info: Recorded) => void) => Promise<TurnResult>,
  options: { stream?: SseOptions; signal: AbortSignal },
): Promise<Response> {
  const { stream } = options;
  if (!stream) return turnJson(await run(() => undefined));

  let running!: Promise<TurnResult>;
  let first: Recorded | undefined;
  let result: TurnResult | undefined;
  try {
    ({ running, first } = await untilRecorded(run));
    if (!first) result = await running;
  } catch (thrown) {
    // Refused before anything was recorded: an ordinary JSON error, and the stream's slot is free again.
    stream.onEnd?.();
    throw thrown;
  }
  if (result?.status === 'queued') {
    // Queued behind the running turn: nothing of its own to stream yet, so the same 202 as JSON.
    stream.onEnd?.();
    return turnJson(result);
  }
  const streamOptions: SseOptions = { ...stream, signal: options.signal };
  if (!first)
    return sseResponse(
      async (writer) => writer.send({ event: 'turn.done', data: JSON.stringify(result) }),
      streamOptions,
    );

  const answerOnly = first.closesPause === false;
  let ended = false;
  let answeredCall: string | undefined;
  // An answer that leaves the pause open writes its own events only: its `action.resolved` and, for
  // a client tool, the `tool.result` of the same call. A turn's events end with its terminal event.
  const accept = (event: EventRecord): boolean => {
    if (ended) return false;
    if (answerOnly) {
      if (event.seq === first.eventSeq)
        answeredCall = typeof event.data.toolCallId === 'string' ? event.data.toolCallId : undefined;
      else if (!(event.type === 'tool.result' && event.data.toolCallId === answeredCall)) return !(ended = true);
      return true;
    }
    if (TERMINAL.has(event.type)) ended = true;
    return true;
  };

  return sseResponse(async (writer) => {
    const outcome = await relayTurnEvents(host, conversationId, first.eventSeq, running, {
      deliver: (event) => accept(event) && (sendEvent(writer, event), true),
      ended: () => ended,
      signal: writer.signal,
      flow: writer,
      pageSize: 100,
      paced: true,
    });
    if (outcome) writer.send({ event: 'turn.done', data: JSON.stringify(outcome) });
  }, streamOptions);
}

/** A turn's outcome as JSON: 200, or 202 for a message queued behind the running turn. */
function turnJson(result: TurnResult): Response {
  return Response.json(result, { status: result.status === 'queued' ? 202 : 200 });
}

/**
 * Starts `run` and waits until its request is recorded (`first`: what it passed to `onRecorded`) or,
 * when it records nothing, until it ends (`first` undefined). A refusal before anything is recorded
 * rejects. The turn goes on detached: `running` is its outcome.
 */
export async function untilRecorded<R>(
  run: (onRecorded: (info: R) => void) => Promise<TurnResult>,
): Promise<{ running: Promise<TurnResult>; first: R | undefined }> {
  let markRecorded!: (info: R) => void;
  const recorded = new Promise<R>((resolve) => (markRecorded = resolve));
  const running = run((info) => markRecorded(info));
  running.catch(() => undefined); // awaited below (the race, then the stream): this only keeps it from being unhandled meanwhile
  const first = await Promise.race([recorded, running.then(() => undefined)]);
  return { running, first };
}

/**
 * Relays the events of a turn from the log, from `firstSeq` on: live while the turn runs (the follower
 * keeps pace with the receiver: a slow reader is fed from the store, not from a queue), then, once the
 * outcome is known and so every write committed, what the follower has not delivered yet, until
 * `ended()`. No gaps, no duplicates: `deliver` returns false for an event it does not take. Resolves
 * with the turn's outcome, or undefined once `signal` aborts.
 */
export async function relayTurnEvents(
  hooks: HeedHooks,
  conversationId: string,
  firstSeq: number,
  running: Promise<TurnResult>,
  options: {
    deliver: (event: EventRecord) => boolean;
    ended: () => boolean;
    signal: AbortSignal;
    flow: FollowFlow;
    /** Events read from the store at a time after the outcome. */
    pageSize: number;
    /** Wait for the receiver to have room before each page. */
    paced?: boolean;
  },
): Promise<TurnResult | undefined> {
  let last = firstSeq - 1;
  const forward = (event: EventRecord) => {
    if (event.seq <= last || !options.deliver(event)) return;
    last = event.seq;
  };
  const follow = hooks.follow(conversationId, last, forward, { flow: options.flow });
  let outcome: TurnResult | undefined;
  try {
    outcome = await untilAborted(running, options.signal);
  } finally {
    follow.close();
  }
  if (!outcome) return undefined;
  while (!options.ended() && !options.signal.aborted) {
    if (options.paced) await options.flow.ready();
    const page = await hooks.events(conversationId, { after: last, limit: options.pageSize });
    for (const event of page) forward(event);
    if (page.length < options.pageSize) break;
  }
  return outcome;
}

/** The promise's value, or undefined as soon as the signal aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
