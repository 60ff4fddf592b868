import type { Caller } from './caller.js';
import type { Engine } from './engine/engine.js';
import { createRequest, type NewRequest } from './engine/requests/create.js';
import { MAX_WAIT_SECONDS, readRequest, waitForRequest } from './engine/requests/read.js';
import { HeedError } from './errors.js';
import type { ExternalRequest } from './kinds/external-request.js';
import { checkCallbackUrl } from './notify/callbacks.js';
import { channelName } from './channels/channel.js';
import type { Notifier } from './notify/notifier.js';
import { REQUESTS_AGENT } from './protocol/request-conversation.js';
import type { JsonObject } from './types.js';
import { actionView, type ActionView } from './views.js';

export type { ExternalRequest };

/** What `heed.requests.create` takes: a request any backend can make, answered like any other. */
export type CreateRequestInput = NewRequest;

/**
 * Requests from anywhere: a backend that is not a chat agent asks a person directly. Each request is an
 * action in a conversation of its own, owned by the caller, in which no agent runs.
 */
export interface HeedRequests {
  /** Makes a request; `created` is false when the idempotency key named one made before. */
  create(input: CreateRequestInput): Promise<{ action: ActionView; created: boolean }>;
  /** A request, for its caller or one of its assignees; 404 `not_found` for anyone else, as for a missing id. */
  get(id: string, options?: { caller?: Caller }): Promise<ActionView>;
  /**
   * Waits until the request is settled or `timeoutSeconds` (at most 60) pass: `settled` says which; the
   * action as it then is either way.
   */
  wait(
    id: string,
    options?: { caller?: Caller; timeoutSeconds?: number; signal?: AbortSignal },
  ): Promise<{ settled: boolean; action: ActionView }>;
}

export function heedRequests(
  engine: Engine,
  notifier: Notifier,
  whenReady: <T>(work: () => Promise<T>) => Promise<T>,
  checkMetadata: (metadata: JsonObject | undefined) => void,
): HeedRequests {
  const view = (action: Parameters<typeof actionView>[1]) => actionView(engine, action, REQUESTS_AGENT);
  return {
    create: (input) =>
      whenReady(async () => {
        if (input.callbackUrl !== undefined) checkCallbackUrl(input.callbackUrl, notifier.config);
        if (input.channel !== undefined) checkRequestChannel(input.channel, [...notifier.channels.keys()]);
        checkMetadata(input.metadata);
        const made = await createRequest(engine, input);
        return { action: view(made.action), created: made.created };
      }),
    get: (id, options = {}) => whenReady(async () => view(await readRequest(engine, id, options.caller))),
    wait: (id, options = {}) =>
      whenReady(async () => {
        const seconds = options.timeoutSeconds ?? 30;
        if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_WAIT_SECONDS) {
          throw new HeedError('invalid_request', `timeoutSeconds must be between 0 and ${MAX_WAIT_SECONDS}.`, {
            details: { field: 'timeoutSeconds' },
          });
        }
        const outcome = await waitForRequest(engine, id, options.caller, {
          timeoutMs: seconds * 1000,
          signal: options.signal,
        });
        return { settled: outcome.settled, action: view(outcome.action) };
      }),
  };
}

/**
 * A request's `channel` names a place on a configured channel (`telegram:-100123`): 400 `invalid_request`
 * otherwise, with the channels there are, since nothing could post it.
 */
export function checkRequestChannel(channel: string, configured: string[]): void {
  const platform = channelName(channel);
  if (configured.includes(platform) && channel.length > platform.length + 1) return;
  const there =
    configured.length > 0 ? `the channels configured are ${configured.join(', ')}` : 'no channel is configured';
  throw new HeedError(
    'invalid_request',
    `channel must be "<platform>:<place>" on a channel this server has (${there}).`,
    { details: { field: 'channel' } },
  );
}
