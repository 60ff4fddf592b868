import { Webhook } from 'standardwebhooks';
import { traceHeaders } from '../telemetry/context.js';
import { newId } from '../ids.js';
import { AgentError } from './agent-error.js';
import { handlerReplySchema } from './handler-reply.js';
import type { AgentHandler, HandlerReply, RemoteAgentConfig, RemoteCallBody } from './handler-types.js';

const DEFAULT_TIMEOUT_SECONDS = 30;
const TRIES = 3;
/** The wait before the second try, doubled before the third. */
const FIRST_BACKOFF_MS = 200;
/** How much of a refused reply's body the turn's error quotes. */
const QUOTED_CHARS = 200;
/** The largest reply body read (`remote.maxReplyBytes`), as the HTTP API's own body limit. */
export const DEFAULT_MAX_REPLY_BYTES = 1024 * 1024;
/** Deepest nesting of objects and lists a reply may have, as a request body (copying deeper would overflow the stack). */
const MAX_REPLY_DEPTH = 64;

/** A reply past `remote.maxReplyBytes`: the turn fails, the call is not tried again. */
class ReplyTooLarge extends Error {}

/**
 * A remote agent as a handler: each call is a POST of a `RemoteCallBody` to `url`, signed with Standard
 * Webhooks. Network errors and 5xx are tried again (up to 3 tries, within `timeoutSeconds` in all) with the
 * same `webhook-id`; a 4xx, or a reply that is not a handler's reply, fails the turn quoting the status and
 * the start of the body. A reply is read up to `maxReplyBytes` and no further: a larger one, or one nested
 * deeper than 64 levels, fails the turn too.
 */
export function remoteHandler(config: RemoteAgentConfig): AgentHandler {
  const webhook = new Webhook(config.secret);
  const post = (body: RemoteCallBody, signal: AbortSignal) => postCall(config, webhook, body, signal);
  return {
    processMessage: ({ conversation, message, signal, idempotencyKey }) =>
      post({ type: 'message', conversation, message, idempotencyKey }, signal),
    resolveAction: ({ conversation, action, resolution, signal, idempotencyKey }) =>
      post({ type: 'resolution', conversation, action, resolution, idempotencyKey }, signal),
  };
}

async function postCall(
  config: RemoteAgentConfig,
  webhook: Webhook,
  body: RemoteCallBody,
  stop: AbortSignal,
): Promise<HandlerReply> {
  const payload = JSON.stringify(body);
  const webhookId = newId('msg');
  const seconds = config.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const maxBytes = config.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  const timeout = AbortSignal.timeout(seconds * 1000);
  const signal = AbortSignal.any([stop, timeout]);
  let last = '';
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    if (attempt > 1) await wait(FIRST_BACKOFF_MS * 2 ** (attempt - 2), signal);
    if (stop.aborted) throw stop.reason;
    if (timeout.aborted) break;
    let response: Response;
    let text: string;
    try {
      const sentAt = new Date();
      response = await fetch(config.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'heed-remote-agent',
          'webhook-id': webhookId,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': webhook.sign(webhookId, sentAt, payload),
          // The turn's span: the remote agent's own spans join Heed's trace (docs/operating.md, Traces).
          ...traceHeaders(),
        },
        body: payload,
        signal,
        redirect: 'manual',
      });
      text = await readCapped(response, maxBytes);
    } catch (thrown) {
      if (thrown instanceof ReplyTooLarge) {
        throw new AgentError(
          `The remote agent at ${config.url} answered with a body over ${maxBytes} bytes (remote.maxReplyBytes); it was not read further.`,
        );
      }
      if (stop.aborted) throw stop.reason;
      if (timeout.aborted) break;
      last = `could not be reached (${thrown instanceof Error ? thrown.message : String(thrown)})`;
      continue;
    }
    if (response.status >= 500) {
      last = `answered ${response.status}: ${quote(text)}`;
      continue;
    }
    if (response.status < 200 || response.status >= 300)
      throw new AgentError(`The remote agent at ${config.url} answered ${response.status}: ${quote(text)}`);
    return readReply(config.url, response.status, text);
  }
  if (timeout.aborted)
    throw new AgentError(
      `The remote agent at ${config.url} did not answer within ${seconds} seconds${last ? `; it last ${last}` : ''}.`,
    );
  throw new AgentError(`The remote agent at ${config.url} failed after ${TRIES} tries: it ${last}`);
}

function readReply(url: string, status: number, text: string): HandlerReply {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new AgentError(`The remote agent at ${url} answered ${status} with a body that is not JSON: ${quote(text)}`);
  }
  if (nestedDeeperThan(value, MAX_REPLY_DEPTH)) {
    throw new AgentError(
      `The remote agent at ${url} answered ${status} with JSON nested more than ${MAX_REPLY_DEPTH} levels deep: ${quote(text)}`,
    );
  }
  const parsed = handlerReplySchema.safeParse(value);
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new AgentError(
      `The remote agent at ${url} answered ${status} with a reply Heed cannot read (${problem.path.join('.') || 'reply'}: ${problem.message}): ${quote(text)}`,
    );
  }
  // The kinds' own checks run on the raw reply, as on a handler's.
  return value as HandlerReply;
}

/** The body as text, read chunk by chunk and given up (the connection dropped) past `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ReplyTooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** True when objects and lists nest deeper than `max`; iterative, so any depth is safe to look at. */
function nestedDeeperThan(root: unknown, max: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= max) return true;
    for (const item of Array.isArray(value) ? value : Object.values(value))
      stack.push({ value: item, depth: depth + 1 });
  }
  return false;
}

function quote(text: string): string {
  return text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
