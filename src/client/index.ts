import type { HeedErrorCode } from '../errors.js';
import type { ErrorBody, ErrorDetails } from '../protocol/error-body.js';
import type { ResolutionInput } from '../protocol/resolution-input.js';
import type {
  AgentInfo,
  ConversationSnapshot,
  DelegationView,
  DemoInfo,
  Me,
  PersonalToken,
  PersonalTokenCreated,
  PersonalTokenScope,
  QueueView,
  TurnResult,
} from '../protocol/responses.js';
import type {
  ActionView,
  ApprovalActionView,
  ClientToolActionView,
  ConversationView,
  QuestionActionView,
  UrlActionView,
} from '../protocol/views.js';
import type { ConversationStatus, EventRecord, RememberedTool } from '../types.js';
import { readSse } from './sse-reader.js';
import type { ExternalRequest } from '../kinds/external-request.js';

export { coerceAnswer, createQuestionForm } from './question-form.js';
export type { CoerceAnswerResult, QuestionField, QuestionForm, QuestionFormState } from './question-form.js';
export {
  allowsCustom,
  answerLabels,
  buildAnswers,
  draftAnswer,
  draftFromValue,
  draftProblem,
  draftProblems,
  initialDrafts,
  optionForHotkey,
  optionHotkey,
  pickOption,
  questionControl,
  setCustom,
} from './question-drafts.js';
export type { QuestionControl, QuestionDraft, QuestionDrafts } from './question-drafts.js';
export type { Question, QuestionInput, QuestionOption } from '../types.js';

export type {
  ExternalRequest,
  ActionView,
  AgentInfo,
  ErrorBody,
  ErrorDetails,
  HeedErrorCode,
  ApprovalActionView,
  ClientToolActionView,
  ConversationSnapshot,
  ConversationView,
  DemoInfo,
  EventRecord,
  Me,
  DelegationView,
  PersonalToken,
  PersonalTokenCreated,
  PersonalTokenScope,
  QuestionActionView,
  QueueView,
  ResolutionInput,
  TurnResult,
  UrlActionView,
};

/** Codes the client gives errors that did not come from Heed: a proxy's page (`http_error`), a stream cut by garbage (`stream_error`). */
export type ClientErrorCode = 'http_error' | 'stream_error';

const clientErrorMarker = Symbol.for('heed.client-error');

/**
 * An error answer of the server (`{ error: { code, message, details? } }`, the schema `errorBody` of
 * src/protocol/error-body.ts) with its HTTP status; `status` is 0 for an error sent inside a stream.
 *
 * @example
 * ```ts
 * try {
 *   await client.answer(conversationId, actionId, { type: 'approval', decision: 'allow' });
 * } catch (error) {
 *   if (HeedClientError.isInstance(error) && error.code === 'action_not_pending') refresh();
 *   else throw error;
 * }
 * ```
 */
export class HeedClientError extends Error {
  readonly [clientErrorMarker] = true;
  /** The stable code to match on (docs/http.md#errors); a newer server may send one this version does not list. */
  readonly code: HeedErrorCode | ClientErrorCode;
  readonly status: number;
  readonly details?: ErrorDetails;

  constructor(
    status: number,
    body: ErrorBody['error'] | { code: ClientErrorCode; message: string; details?: ErrorDetails },
  ) {
    super(body.message);
    this.name = 'HeedClientError';
    this.status = status;
    this.code = body.code;
    this.details = body.details;
  }

  /** True for any HeedClientError, even one from another copy of the package. */
  static isInstance(error: unknown): error is HeedClientError {
    return (
      typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[clientErrorMarker] === true
    );
  }
}

/** The former name of `HeedClientError`, kept for code written against it. */
export const HeedApiError = HeedClientError;
/** The former name of `HeedClientError`. */
export type HeedApiError = HeedClientError;

export interface HeedClientOptions {
  /** Where the server listens, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * In a browser signed in with the organization's identity (its session cookie, docs/auth.md): the
   * session's CSRF token from `GET /auth/session`, sent as `x-heed-csrf` on every request that changes something.
   */
  csrf?: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** What a streamed message or answer yields: the events of the turn, then its outcome. */
export type TurnStreamPart = { type: 'event'; event: EventRecord } | { type: 'done'; result: TurnResult };

export interface FollowOptions {
  /** Start after this event number (default 0: from the first event). */
  after?: number;
  /** Stops following. */
  signal?: AbortSignal;
  /** Reconnect (resuming with `Last-Event-ID`) when the connection drops. Default true. */
  reconnect?: boolean;
  /** Wait before reconnecting, in ms; doubled after each failed attempt, up to 15 s. Default 1000. */
  retryMs?: number;
  /**
   * A connection that brings nothing for this long (not even the server's heartbeat, sent every 15 s)
   * is taken as cut and opened again. Default 40,000 ms.
   */
  idleMs?: number;
  /** Told when the stream is connected (`open`) and when the connection was lost (`lost`; it reconnects unless `reconnect` is false). */
  onConnection?: (state: 'open' | 'lost') => void;
}

/** A browser the caller's requests are pushed to (docs/notifications.md, Push). */
export interface PushSubscriptionView {
  endpoint: string;
  createdAt: string;
}

/** A typed client of Heed's HTTP API, for headless callers (scripts, workers, other services). */
export interface HeedClient {
  agents(): Promise<AgentInfo[]>;
  /** Who the server takes the caller to be (`GET /api/me`): `{ userId }`, null when anonymous; `operator` for operators. */
  me(): Promise<Me>;
  /** What waits for people and how long they take (`GET /api/queue`, operators only). */
  queue(): Promise<QueueView>;
  /** The caller's delegation and the ones they hold (`GET /api/me/delegation`; docs/approvals.md, Delegation). */
  delegation(): Promise<DelegationView>;
  /** Hands the caller's requests to `to` until `until` (`PUT /api/me/delegation`). */
  setDelegation(input: { to: string; until?: string }): Promise<DelegationView>;
  /** Ends the caller's delegation now (`DELETE /api/me/delegation`). */
  clearDelegation(): Promise<DelegationView>;
  /** The VAPID public key a browser subscribes with (`GET /api/push/key`; 404 when the server has no push). */
  pushKey(): Promise<{ publicKey: string }>;
  /** The endpoints the caller's requests are pushed to (`GET /api/me/push-subscriptions`). */
  pushSubscriptions(): Promise<PushSubscriptionView[]>;
  /** Pushes the caller's requests to a browser too (`POST /api/me/push-subscriptions`, `PushSubscription.toJSON()`). */
  addPushSubscription(subscription: {
    endpoint: string;
    keys: { p256dh: string; auth: string };
  }): Promise<PushSubscriptionView[]>;
  /** Stops pushing to a browser (`DELETE /api/me/push-subscriptions?endpoint=`). */
  removePushSubscription(endpoint: string): Promise<PushSubscriptionView[]>;
  /**
   * The caller's personal tokens, newest first, without their secrets (`GET /api/me/tokens`; docs/auth.md).
   * Refused (403 `scope`) to a caller that is itself a personal token.
   */
  listTokens(): Promise<PersonalToken[]>;
  /**
   * Makes a personal token (`POST /api/me/tokens`): `token` holds its secret, returned this once.
   * `expiresInDays` 1–366; absent, it does not lapse. The `admin` scope only for an admin (403 `forbidden`).
   */
  createToken(input: {
    name: string;
    scopes: PersonalTokenScope[];
    expiresInDays?: number;
  }): Promise<PersonalTokenCreated>;
  /** Revokes one of the caller's personal tokens at once (`DELETE /api/me/tokens/:id`); 404 `not_found` for another id. */
  revokeToken(id: string): Promise<void>;
  /** One agent, as `agents()` lists it; a `HeedClientError` with code `not_found` when no agent has that name. */
  agent(name: string): Promise<AgentInfo>;
  /** The demo's users and their demo-only tokens (`GET /api/demo`); undefined when the server does not run the demo. */
  demo(): Promise<DemoInfo | undefined>;
  createConversation(input: { agent: string; metadata?: Record<string, unknown> }): Promise<ConversationView>;
  /** The caller's conversations, newest first; `q` keeps those whose title or agent name contains it. */
  listConversations(filter?: {
    status?: ConversationStatus;
    agent?: string;
    q?: string;
    limit?: number;
    signal?: AbortSignal;
  }): Promise<ConversationView[]>;
  /**
   * The conversation with its newest messages (100 by default). `hasEarlierMessages` says older ones exist:
   * pass `before` (the id of the first message you have) to read them.
   */
  getConversation(conversationId: string, page?: { before?: string; limit?: number }): Promise<ConversationSnapshot>;
  /**
   * Sends a message and waits for the turn to complete, pause, be cancelled or fail. While a turn runs, an
   * agent with `busyPolicy: 'queue'` answers at once with `status: 'queued'` and `queued: { messageId, position }`.
   */
  send(conversationId: string, content: string): Promise<TurnResult>;
  /** Sends a message and yields the turn's events as they happen, then its outcome (only a `done` with `status: 'queued'` when it was queued). */
  sendStream(
    conversationId: string,
    content: string,
    options?: { signal?: AbortSignal },
  ): AsyncGenerator<TurnStreamPart>;
  /** Every action of the conversation, pending first. */
  actions(conversationId: string): Promise<ActionView[]>;
  /** The conversation's actions still waiting for an answer. */
  pending(conversationId: string): Promise<ActionView[]>;
  /** One page of everything waiting on the caller, oldest first. */
  inbox(options?: { limit?: number; cursor?: string }): Promise<{ actions: ActionView[]; nextCursor?: string }>;
  /**
   * Follows the caller's inbox live (`GET /api/inbox/stream`): `inbox.added` (data: the action),
   * `inbox.synced` (`{ count }`), `inbox.removed` (`{ id, conversationId }`). Ends when the connection does,
   * or when it brought nothing for `idleMs` (default 40,000; the server sends a heartbeat every 15 s).
   */
  inboxEvents(options?: { signal?: AbortSignal; idleMs?: number }): AsyncGenerator<{ event: string; data: unknown }>;
  /** Answers an action; when it closes the pause, waits for the continued turn. */
  answer(conversationId: string, actionId: string, resolution: ResolutionInput): Promise<TurnResult>;
  answerStream(
    conversationId: string,
    actionId: string,
    resolution: ResolutionInput,
    options?: { signal?: AbortSignal },
  ): AsyncGenerator<TurnStreamPart>;
  /**
   * Moves a pending action's deadline to `minutes` from now (0: never lapses, where the server allows it), as
   * whoever may answer it (`POST …/actions/{actionId}/extend`); the action with its new `expiresAt`.
   */
  extend(conversationId: string, actionId: string, minutes: number): Promise<{ action: ActionView }>;
  /**
   * Answers several actions at once (`POST /api/inbox/decisions`, at most 100): each is settled as `answer`
   * would settle it, in the order given, and gets its own outcome (`status` 200, 409 with the stored
   * answer, 400…); one refused does not stop the others. `remember` is never applied in a batch.
   */
  decide(decisions: Array<{ actionId: string; resolution: ResolutionInput }>): Promise<DecisionResult[]>;
  cancel(conversationId: string): Promise<{ status: ConversationStatus; cancelled: boolean }>;
  events(
    conversationId: string,
    options?: { after?: number; limit?: number },
  ): Promise<{ events: EventRecord[]; hasMore: boolean }>;
  /** Follows the event log live, from `after`, resuming after a dropped connection without gaps or repeats. */
  follow(conversationId: string, options?: FollowOptions): AsyncGenerator<EventRecord>;
  rememberedTools(conversationId: string): Promise<RememberedTool[]>;
  forgetTool(conversationId: string, toolName: string): Promise<void>;
  branch(conversationId: string, options?: { fromMessageId?: string }): Promise<ConversationView>;
  /** Requests from anywhere (`POST /api/requests`): ask a person directly, then read or wait for the answer. */
  readonly requests: HeedClientRequests;
}

/** What `requests.create` sends: `POST /api/requests`'s body. */
/** How one answer of a batch went: the status and body the single answer would have got. */
export interface DecisionResult {
  actionId: string;
  status: number;
  /** The action as settled (200), or `{ error }` (`ErrorBody`) for anything else. */
  body: unknown;
}

export interface CreateRequestInput {
  /** Any kind's request as a tool raises it with `ctx.request`: an approval, a question, a URL to open. */
  request: ExternalRequest;
  /** User ids who may answer it besides the caller; it shows in their inbox. */
  assignees?: string[];
  /** Where the settled action is posted (its host must be in the server's `notify.callbackHosts`). */
  callbackUrl?: string;
  /** When it lapses (ISO time). */
  expiresAt?: string;
  /** The same key from the same caller returns the same request (`created: false`); needs a token (refused when anonymous). */
  idempotencyKey?: string;
  metadata?: Record<string, unknown>;
}

/**
 * Requests from anywhere, for a backend that is not a chat agent.
 *
 * @example
 * ```ts
 * const { action } = await client.requests.create({
 *   request: { kind: 'approval', title: 'Deploy 1.4 to production?' },
 *   assignees: ['bob'],
 *   idempotencyKey: 'deploy-1.4',
 * });
 * let outcome = await client.requests.wait(action.id, { timeoutSeconds: 30 });
 * while (!outcome.settled) outcome = await client.requests.wait(action.id, { timeoutSeconds: 30 });
 * ```
 */
export interface HeedClientRequests {
  /** `created` is false when the idempotency key named a request made before (the server answered 200). */
  create(input: CreateRequestInput): Promise<{ action: ActionView; created: boolean }>;
  get(id: string): Promise<ActionView>;
  /** Long-polls: `settled` once answered, lapsed or withdrawn; false when `timeoutSeconds` (default 30, at most 60) ran out. */
  wait(
    id: string,
    options?: { timeoutSeconds?: number; signal?: AbortSignal },
  ): Promise<{ settled: boolean; action: ActionView }>;
}

/** Everything waiting on the client's caller, oldest first: `GET /api/inbox` page after page, up to `max` actions. */
export async function readWholeInbox(client: Pick<HeedClient, 'inbox'>, max: number): Promise<ActionView[]> {
  const actions: ActionView[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.inbox({ limit: 200, ...(cursor ? { cursor } : {}) });
    actions.push(...page.actions);
    cursor = page.nextCursor;
  } while (cursor && actions.length < max);
  return actions;
}

/**
 * Creates a client of the Heed server at `baseUrl`.
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl: 'http://127.0.0.1:3000', token: 'tok-a' });
 * const { id } = await client.createConversation({ agent: 'support' });
 * const turn = await client.send(id, 'Please refund order 42.');
 * ```
 */
export function createClient(options: HeedClientOptions): HeedClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const fetcher = options.fetch ?? fetch;
  const path = (...segments: string[]) => segments.map(encodeURIComponent).join('/');
  const conversationPath = (id: string, ...rest: string[]) => `/api/conversations/${path(id, ...rest)}`;

  async function request(
    method: string,
    url: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    else if (options.csrf && method !== 'GET') headers['x-heed-csrf'] = options.csrf;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetcher(`${base}${url}`, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
    if (!response.ok) throw await apiError(response);
    return response;
  }
  const json = async <T>(method: string, url: string, body?: unknown): Promise<T> =>
    (await request(method, url, { body })).json() as Promise<T>;

  async function* turnStream(
    url: string,
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): AsyncGenerator<TurnStreamPart> {
    const response = await request('POST', url, {
      body: { ...body, stream: true },
      headers: { accept: 'text/event-stream' },
      signal,
    });
    // A message queued behind a running turn is answered 202 with JSON, not a stream: its outcome is that.
    if (response.status === 202) {
      yield { type: 'done', result: (await response.json()) as TurnResult };
      return;
    }
    for await (const message of readSse(streamOf(response), signal)) {
      if (message.event === 'error') throw errorFromData(message.data);
      if (message.event === 'turn.done') {
        yield { type: 'done', result: JSON.parse(message.data) as TurnResult };
        return;
      }
      yield { type: 'event', event: JSON.parse(message.data) as EventRecord };
    }
  }

  return {
    agents: async () => (await json<{ agents: AgentInfo[] }>('GET', '/api/agents')).agents,
    me: () => json<Me>('GET', '/api/me'),
    queue: () => json<QueueView>('GET', '/api/queue'),
    delegation: () => json<DelegationView>('GET', '/api/me/delegation'),
    setDelegation: (input) => json<DelegationView>('PUT', '/api/me/delegation', input),
    clearDelegation: () => json<DelegationView>('DELETE', '/api/me/delegation'),
    pushKey: () => json<{ publicKey: string }>('GET', '/api/push/key'),
    pushSubscriptions: async () =>
      (await json<{ subscriptions: PushSubscriptionView[] }>('GET', '/api/me/push-subscriptions')).subscriptions,
    addPushSubscription: async (subscription) =>
      (
        await json<{ subscriptions: PushSubscriptionView[] }>('POST', '/api/me/push-subscriptions', {
          endpoint: subscription.endpoint,
          keys: subscription.keys,
        })
      ).subscriptions,
    removePushSubscription: async (endpoint) =>
      (
        await json<{ subscriptions: PushSubscriptionView[] }>(
          'DELETE',
          `/api/me/push-subscriptions?${new URLSearchParams({ endpoint })}`,
        )
      ).subscriptions,
    listTokens: async () => (await json<{ tokens: PersonalToken[] }>('GET', '/api/me/tokens')).tokens,
    createToken: (input) => json<PersonalTokenCreated>('POST', '/api/me/tokens', input),
    async revokeToken(id) {
      await request('DELETE', `/api/me/tokens/${path(id)}`);
    },
    agent: (name) => json('GET', `/api/agents/${path(name)}`),
    async demo() {
      try {
        return await json<DemoInfo>('GET', '/api/demo');
      } catch (thrown) {
        if (HeedClientError.isInstance(thrown) && thrown.status === 404) return undefined;
        throw thrown;
      }
    },
    createConversation: (input) => json('POST', '/api/conversations', input),
    async listConversations({ signal, ...filter } = {}) {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(filter)) if (value !== undefined) query.set(key, String(value));
      const search = query.size ? `?${query}` : '';
      return (
        (await (await request('GET', `/api/conversations${search}`, { signal })).json()) as {
          conversations: ConversationView[];
        }
      ).conversations;
    },
    getConversation(id, page = {}) {
      const query = new URLSearchParams();
      if (page.before !== undefined) query.set('before', page.before);
      if (page.limit !== undefined) query.set('limit', String(page.limit));
      return json('GET', `${conversationPath(id)}${query.size ? `?${query}` : ''}`);
    },
    send: (id, content) => json('POST', conversationPath(id, 'messages'), { content }),
    sendStream: (id, content, streamOptions = {}) =>
      turnStream(conversationPath(id, 'messages'), { content }, streamOptions.signal),
    actions: async (id) => (await json<{ actions: ActionView[] }>('GET', conversationPath(id, 'actions'))).actions,
    async pending(id) {
      return (await this.actions(id)).filter((action) => action.status === 'pending');
    },
    inbox(inboxOptions = {}) {
      const query = new URLSearchParams();
      if (inboxOptions.limit !== undefined) query.set('limit', String(inboxOptions.limit));
      if (inboxOptions.cursor !== undefined) query.set('cursor', inboxOptions.cursor);
      return json('GET', `/api/inbox${query.size ? `?${query}` : ''}`);
    },
    async *inboxEvents(streamOptions = {}) {
      const connection = new AbortController();
      const stop = () => connection.abort();
      streamOptions.signal?.addEventListener('abort', stop, { once: true });
      if (streamOptions.signal?.aborted) stop();
      let idle: ReturnType<typeof setTimeout> | undefined;
      const alive = () => {
        clearTimeout(idle);
        idle = setTimeout(stop, streamOptions.idleMs ?? 40_000);
      };
      try {
        alive();
        const response = await request('GET', '/api/inbox/stream', {
          headers: { accept: 'text/event-stream' },
          signal: connection.signal,
        });
        for await (const message of readSse(streamOf(response), connection.signal, alive)) {
          if (message.event === 'error') throw errorFromData(message.data);
          yield { event: message.event, data: JSON.parse(message.data) as unknown };
        }
      } finally {
        clearTimeout(idle);
        streamOptions.signal?.removeEventListener('abort', stop);
      }
    },
    answer: (id, actionId, resolution) => json('POST', conversationPath(id, 'actions', actionId), { resolution }),
    answerStream: (id, actionId, resolution, streamOptions = {}) =>
      turnStream(conversationPath(id, 'actions', actionId), { resolution }, streamOptions.signal),
    extend: (id, actionId, minutes) => json('POST', conversationPath(id, 'actions', actionId, 'extend'), { minutes }),
    cancel: (id) => json('POST', conversationPath(id, 'cancel')),
    events: (id, eventOptions = {}) =>
      json(
        'GET',
        `${conversationPath(id, 'events')}?after=${eventOptions.after ?? 0}${eventOptions.limit ? `&limit=${eventOptions.limit}` : ''}`,
      ),
    async *follow(id, followOptions = {}) {
      let last = followOptions.after ?? 0;
      const signal = followOptions.signal;
      const retryMs = followOptions.retryMs ?? 1000;
      let failures = 0;
      while (!signal?.aborted) {
        // One connection: ends with the caller's signal, or when it has been silent for idleMs.
        const connection = new AbortController();
        const stop = () => connection.abort();
        signal?.addEventListener('abort', stop, { once: true });
        let idle: ReturnType<typeof setTimeout> | undefined;
        const alive = () => {
          clearTimeout(idle);
          idle = setTimeout(stop, followOptions.idleMs ?? 40_000);
        };
        let opened = false;
        try {
          alive();
          const response = await request('GET', conversationPath(id, 'events', 'stream'), {
            headers: { accept: 'text/event-stream', 'last-event-id': String(last) },
            signal: connection.signal,
          });
          opened = true;
          failures = 0;
          followOptions.onConnection?.('open');
          for await (const message of readSse(streamOf(response), connection.signal, alive)) {
            if (message.event === 'error') throw errorFromData(message.data);
            const event = JSON.parse(message.data) as EventRecord;
            if (event.seq <= last) continue;
            last = event.seq;
            yield event;
          }
        } catch (thrown) {
          // A refusal (404, 401…) is final; a dropped connection, or a proxy's 5xx while the server is away, is retried below.
          if (signal?.aborted) return;
          if (HeedClientError.isInstance(thrown) && !(thrown.status >= 500)) throw thrown;
        } finally {
          clearTimeout(idle);
          signal?.removeEventListener('abort', stop);
        }
        if (signal?.aborted) return;
        if (opened || failures === 0) followOptions.onConnection?.('lost');
        if (followOptions.reconnect === false) return;
        await new Promise((resolve) => setTimeout(resolve, Math.min(15_000, retryMs * 2 ** failures)));
        failures++;
      }
    },
    requests: {
      async create(input) {
        const response = await request('POST', '/api/requests', { body: input });
        return { action: (await response.json()) as ActionView, created: response.status === 201 };
      },
      get: (id) => json('GET', `/api/requests/${path(id)}`),
      async wait(id, waitOptions = {}) {
        const query = new URLSearchParams();
        if (waitOptions.timeoutSeconds !== undefined) query.set('timeoutSeconds', String(waitOptions.timeoutSeconds));
        const url = `/api/requests/${path(id, 'wait')}${query.size ? `?${query}` : ''}`;
        const response = await request('GET', url, { signal: waitOptions.signal });
        return { settled: response.status === 200, action: (await response.json()) as ActionView };
      },
    },
    decide: async (decisions) =>
      (await json<{ results: DecisionResult[] }>('POST', '/api/inbox/decisions', { decisions })).results,
    rememberedTools: async (id) =>
      (await json<{ tools: RememberedTool[] }>('GET', conversationPath(id, 'remembered-tools'))).tools,
    async forgetTool(id, toolName) {
      await request('DELETE', conversationPath(id, 'remembered-tools', toolName));
    },
    branch: (id, branchOptions = {}) => json('POST', conversationPath(id, 'branch'), branchOptions),
  };
}

async function apiError(response: Response): Promise<HeedClientError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as Partial<ErrorBody> | null;
    if (typeof body?.error?.code === 'string') return new HeedClientError(response.status, body.error);
  } catch {
    // Not one of ours (a proxy's page, say): reported below.
  }
  return new HeedClientError(response.status, {
    code: 'http_error',
    message: `The server answered ${response.status}: ${text.slice(0, 200)}`,
  });
}

/** The body of a response the server streams; one without a body is reported as a broken stream. */
function streamOf(response: Response): ReadableStream<Uint8Array> {
  if (response.body) return response.body;
  throw new HeedClientError(response.status, {
    code: 'stream_error',
    message: `The server answered ${response.status} without a stream.`,
  });
}

function errorFromData(data: string): HeedClientError {
  try {
    const body = JSON.parse(data) as ErrorBody;
    return new HeedClientError(0, body.error);
  } catch {
    return new HeedClientError(0, { code: 'stream_error', message: data });
  }
}
