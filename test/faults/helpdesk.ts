/**
 * The helpdesk flow the fault tests run against real `heed serve` processes, and what they check
 * afterwards. Each client opens conversations and, in each, asks for refunds one after another: the
 * agent pauses on an approval, the client allows it, the refund runs, the agent says so. A client keeps
 * to one instance. When a request fails it reads the conversation (from the same instance) and goes on
 * from what is stored, as a careful client would; it never restarts anything.
 */
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { MessageRecord } from '../../src/types.js';
import { conversationProblems } from '../invariants.js';

const TOKEN = 'token-ada';
/** A request that takes longer is abandoned (and counted as slower than the 30 s allowed). */
const ABANDON_MS = 45_000;

export interface Failure {
  /** Milliseconds since the run started. */
  at: number;
  url: string;
  what: string;
  ms: number;
  status?: number;
  code?: string;
  /** `Retry-After`, when the answer had one. */
  retryAfter?: string | null;
  /** The network error (`ECONNRESET`, …) when no answer came. */
  network?: string;
  /** Why the answer is not a clear error: not JSON, or no code and message. */
  unclear?: string;
}

export interface Observed {
  started: number;
  /** Every action id a 2xx answer offered as pending, by conversation. */
  offered: Map<string, Set<string>>;
  /** Every answer that got a 2xx. */
  answered: Array<{ conversationId: string; actionId: string }>;
  failures: Failure[];
  /** Requests answered, 2xx or not, with their time. */
  answers: Array<{ at: number; url: string; ms: number; status: number }>;
  /** Refunds the client saw through to "Refunded", with when they finished. */
  completed: Array<{ at: number; url: string }>;
  conversations: Set<string>;
  /** 2xx answers that reported a turn carried on by another instance (`turn_moved`). */
  moved: number;
  /** Things the clients saw that must not happen (a refund that ended without a reply, an offered action not found). */
  problems: string[];
}

export function observe(): Observed {
  return {
    started: Date.now(),
    offered: new Map(),
    answered: [],
    failures: [],
    answers: [],
    completed: [],
    conversations: new Set(),
    problems: [],
    moved: 0,
  };
}

interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

// A client's own pace: its pause before each request, and between reads while it follows a conversation
// (each loop has its deadline). None of these stands in for "the server has done it by now".
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a client waits before each request, as a person or a program reading the last answer would. */
const THINK_MS = 30;

/** One JSON call; records what came back. Undefined when no answer came (the connection failed). */
async function request(
  observed: Observed,
  url: string,
  method: string,
  path: string,
  what: string,
  body?: unknown,
): Promise<Reply | undefined> {
  await sleep(THINK_MS);
  const begun = Date.now();
  const at = begun - observed.started;
  let response: Response;
  try {
    response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(ABANDON_MS),
    });
  } catch (thrown) {
    const cause = (thrown as { cause?: { code?: string } }).cause;
    observed.failures.push({
      at,
      url,
      what,
      ms: Date.now() - begun,
      network: cause?.code ?? (thrown as Error).name ?? String(thrown),
    });
    return undefined;
  }
  let text = '';
  try {
    text = await response.text();
  } catch (thrown) {
    const cause = (thrown as { cause?: { code?: string } }).cause;
    observed.failures.push({
      at,
      url,
      what,
      ms: Date.now() - begun,
      status: response.status,
      network: cause?.code ?? String(thrown),
    });
    return undefined;
  }
  const ms = Date.now() - begun;
  observed.answers.push({ at, url, ms, status: response.status });
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (response.status >= 300) {
    const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    const clear = typeof error?.code === 'string' && typeof error.message === 'string' && error.message.length > 0;
    observed.failures.push({
      at,
      url,
      what,
      ms,
      status: response.status,
      code: typeof error?.code === 'string' ? error.code : undefined,
      retryAfter: response.headers.get('retry-after'),
      ...(clear ? {} : { unclear: text.slice(0, 200) || '(empty body)' }),
    });
    return { status: response.status, body: parsed };
  }
  if (
    (parsed as { warnings?: Array<{ code: string }> } | undefined)?.warnings?.some(
      (warning) => warning.code === 'turn_moved',
    )
  )
    observed.moved++;
  const pending = (parsed as { pendingActions?: Array<{ id: string }> } | undefined)?.pendingActions;
  const conversationId =
    (parsed as { conversationId?: string; conversation?: { id: string } } | undefined)?.conversationId ??
    (parsed as { conversation?: { id: string } })?.conversation?.id;
  if (pending && conversationId) {
    const set = observed.offered.get(conversationId) ?? new Set<string>();
    for (const action of pending) set.add(action.id);
    observed.offered.set(conversationId, set);
  }
  return { status: response.status, body: parsed };
}

/**
 * Runs `clients` helpdesk clients, client i on `urls[i % urls.length]`, until stopped. A function in
 * `urls` is asked before each refund (an instance that is replaced by another).
 */
export function helpdesk(observed: Observed, urls: Array<string | (() => string)>, clients: number) {
  let stopped = false;
  let order = 0;
  const client = async (where: string | (() => string)) => {
    const now = () => (typeof where === 'string' ? where : where());
    let url = now();
    while (!stopped) {
      url = now();
      const created = await request(observed, url, 'POST', '/api/conversations', 'create', { agent: 'helpdesk' });
      if (created?.status !== 201) {
        await sleep(250);
        continue;
      }
      const id = created.body.id as string;
      observed.conversations.add(id);
      for (let cycle = 0; cycle < 3 && !stopped; cycle++) await refund(observed, now, id, ++order);
    }
  };
  const running = Promise.all(Array.from({ length: clients }, (_, index) => client(urls[index % urls.length])));
  return {
    /** Starts no new refund; waits for the ones under way to finish (each within its own deadline). */
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** One refund, from the message to "Refunded", going on from the stored state after any failure. */
async function refund(observed: Observed, where: () => string, id: string, order: number): Promise<void> {
  let url = where();
  const content = `Please refund order ${order}.`;
  const deadline = Date.now() + 60_000;
  let last = 'nothing read';
  let sent = false;
  const answer = async (actions: Array<{ id: string }>): Promise<boolean> => {
    for (const action of actions) {
      const reply = await request(observed, url, 'POST', `/api/conversations/${id}/actions/${action.id}`, 'answer', {
        resolution: { type: 'approval', decision: 'allow' },
      });
      if (reply?.status === 200) observed.answered.push({ conversationId: id, actionId: action.id });
      if (reply?.status === 404)
        observed.problems.push(`${id}: the offered action ${action.id} was not found when answered`);
      if (reply?.status === 200 && reply.body.status === 'completed') return true;
      if (reply?.status !== 200) return false;
    }
    return false;
  };
  while (Date.now() < deadline) {
    url = where();
    if (!sent) {
      const reply = await request(observed, url, 'POST', `/api/conversations/${id}/messages`, 'send', { content });
      if (reply?.status === 200) {
        sent = true;
        if (reply.body.status === 'completed' && finished(reply.body.messages, order)) return done(observed, url);
        if (reply.body.status === 'requires_action' && (await answer(reply.body.pendingActions)))
          return done(observed, url);
        continue;
      }
    }
    const read = await request(observed, url, 'GET', `/api/conversations/${id}`, 'read');
    if (read?.status !== 200) {
      await sleep(300);
      continue;
    }
    const messages = read.body.messages as Array<{ role: string; parts: Array<{ type: string; text?: string }> }>;
    last = `${read.body.runtime.status}: ${JSON.stringify(messages.slice(-3).map((message) => [message.role, message.parts]))}`;
    const mine = messages.findIndex(
      (message) => message.role === 'user' && message.parts.some((part) => part.text === content),
    );
    const status = read.body.runtime.status as string;
    if (mine < 0) {
      // Not recorded (the send failed before its commit): send again once nothing runs.
      sent = false;
      if (status !== 'idle') await sleep(200);
      continue;
    }
    sent = true;
    if (status === 'requires_action') {
      if (await answer(read.body.pendingActions ?? [])) return done(observed, url);
      continue;
    }
    if (status === 'running') {
      await sleep(200);
      continue;
    }
    if (finished(messages.slice(mine), order)) return done(observed, url);
    observed.problems.push(
      `${id}: the refund of order ${order} ended without its reply: ${JSON.stringify(messages.slice(mine).map((message) => message.parts))}`,
    );
    return;
  }
  observed.problems.push(`${id}: the refund of order ${order} did not finish within 60 s (${url}; last read: ${last})`);
}

function finished(
  messages: Array<{ role: string; parts: Array<{ type: string; text?: string }> }>,
  order: number,
): boolean {
  return messages.some(
    (message) => message.role === 'assistant' && message.parts.some((part) => part.text === `Refunded order ${order}.`),
  );
}

function done(observed: Observed, url: string): void {
  observed.completed.push({ at: Date.now() - observed.started, url });
}

/** Milliseconds since the run started. */
export function elapsed(observed: Observed): number {
  return Date.now() - observed.started;
}

/**
 * Waits until each of `urls` has seen `count` refunds through to "Refunded" since `since` (milliseconds
 * into the run): the load flows there. Fails, naming the instances that lag, after `timeout`.
 */
export async function refundsThrough(
  observed: Observed,
  urls: string[],
  { since = 0, count = 1, timeout = 60_000 }: { since?: number; count?: number; timeout?: number } = {},
): Promise<void> {
  const lagging = () =>
    urls.filter((url) => observed.completed.filter((done) => done.url === url && done.at > since).length < count);
  await expect
    .poll(lagging, { timeout, message: `${count} refund(s) through on each instance after ${since} ms` })
    .toEqual([]);
}

/** Waits until an instance at `url` has answered 503 `store_unavailable` to a request made at or after `since`. */
export async function storeUnavailable(
  observed: Observed,
  url: string,
  { since = 0, timeout = 60_000 }: { since?: number; timeout?: number } = {},
): Promise<void> {
  await expect
    .poll(
      () =>
        observed.failures.some(
          (failure) =>
            failure.url === url &&
            failure.at >= since &&
            failure.status === 503 &&
            failure.code === 'store_unavailable',
        ),
      { timeout, message: `a 503 store_unavailable from ${url} to a request made after ${since} ms` },
    )
    .toBe(true);
}

/** Tool runs from the log: conversation, order, idempotency key, pid. */
export function toolRuns(log: string): Array<{ conversationId: string; order: number; key: string; pid: number }> {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [conversationId, order, key, pid] = line.split(' ');
      return { conversationId, order: Number(order), key, pid: Number(pid) };
    });
}

/** Tool calls of a conversation's messages that have no result. */
function missingResults(messages: MessageRecord[]): string[] {
  const results = new Set(
    messages.flatMap((message) =>
      message.parts.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])),
    ),
  );
  return messages.flatMap((message) =>
    message.parts.flatMap((part) =>
      part.type === 'tool-call' && !results.has(part.toolCallId) ? [part.toolCallId] : [],
    ),
  );
}

/**
 * What must hold once the fault is over, read from the store: every pause a 2xx offered is stored
 * with that id; every answer that got a 2xx is the one on record; no conversation is left running, or
 * idle with a tool call that has no result; every conversation passes the invariants; no turn was
 * recorded as failed; each approval's tool ran under one idempotency key (its call's), and each refund
 * asked for ran under at most one key.
 */
export async function storedProblems(store: Store, observed: Observed, log: string): Promise<string[]> {
  const problems: string[] = [];
  for (const [conversationId, ids] of observed.offered) {
    const stored = new Set((await store.listActions(conversationId)).map((action) => action.id));
    for (const id of ids)
      if (!stored.has(id)) problems.push(`${conversationId}: action ${id} was offered by a 2xx but is not stored`);
  }
  for (const { conversationId, actionId } of observed.answered) {
    const action = await store.getAction(conversationId, actionId);
    if (action?.status !== 'resolved' || action.resolvedBy !== 'ada')
      problems.push(
        `${conversationId}: the answer to ${actionId} got a 2xx but the action is ${action?.status ?? 'missing'}`,
      );
  }
  const runs = toolRuns(log);
  for (const conversationId of observed.conversations) {
    const conversation = await store.getConversation(conversationId);
    if (!conversation) {
      problems.push(`${conversationId}: not stored`);
      continue;
    }
    if (conversation.status === 'running') problems.push(`${conversationId}: still running`);
    const messages = await store.listMessages(conversationId);
    if (conversation.status === 'idle') {
      const missing = missingResults(messages);
      if (missing.length > 0)
        problems.push(`${conversationId}: idle with tool calls that have no result: ${missing.join(', ')}`);
    }
    for (const problem of await conversationProblems(store, conversationId))
      problems.push(`${conversationId}: ${problem}`);
    const events = await store.listEvents(conversationId, { limit: 500 });
    for (const event of events)
      if (event.type === 'turn.failed') problems.push(`${conversationId}: turn.failed ${JSON.stringify(event.data)}`);
    const approvals = (await store.listActions(conversationId)).filter((action) => action.kind === 'approval');
    const mine = runs.filter((run) => run.conversationId === conversationId);
    for (const approval of approvals) {
      const keys = new Set(mine.filter((run) => run.key === approval.toolCallId).map((run) => run.key));
      if (keys.size > 1) problems.push(`${conversationId}: approval ${approval.id} ran under ${keys.size} keys`);
    }
    const keysByOrder = new Map<number, Set<string>>();
    for (const run of mine) keysByOrder.set(run.order, (keysByOrder.get(run.order) ?? new Set()).add(run.key));
    for (const [order, keys] of keysByOrder)
      if (keys.size > 1)
        problems.push(`${conversationId}: the refund of order ${order} ran under ${keys.size} idempotency keys`);
    for (const run of mine) {
      if (!approvals.some((approval) => approval.toolCallId === run.key && approval.status === 'resolved')) {
        problems.push(`${conversationId}: the tool ran under ${run.key}, which no allowed approval names`);
      }
    }
  }
  return problems;
}

/** Failures that are not a clear JSON error in under 30 s (network errors are listed apart). */
export function unclearFailures(observed: Observed): Failure[] {
  return observed.failures.filter(
    (failure) => failure.network === undefined && (failure.unclear !== undefined || failure.ms > 30_000),
  );
}

/** Turns taken over (`turn.started` by recovery) in the conversations the clients used. */
export async function takeovers(store: Store, observed: Observed): Promise<number> {
  let count = 0;
  for (const id of observed.conversations) {
    count += (await store.listEvents(id, { limit: 500 })).filter(
      (event) => event.type === 'turn.started' && event.data.trigger === 'recovery',
    ).length;
  }
  return count;
}

/** A one-line summary of the failures by status and code, for the test's report. */
export function summary(observed: Observed): string {
  const counts = new Map<string, number>();
  for (const failure of observed.failures) {
    const key = failure.network ? `network ${failure.network}` : `${failure.status} ${failure.code ?? '?'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const slowest = Math.max(0, ...observed.failures.map((failure) => failure.ms));
  return (
    `${observed.conversations.size} conversations, ${observed.completed.length} refunds completed, ${observed.answered.length} answers with a 2xx, ` +
    `${observed.answers.length} answers in all, ${observed.moved} reporting a turn that moved; failures: ${[...counts].map(([key, count]) => `${key} ×${count}`).join(', ') || 'none'}; slowest failure ${slowest} ms`
  );
}
