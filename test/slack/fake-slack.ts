/**
 * Plays Slack for the channel tests: a local Web API (pointed at by `channels.slack.apiUrl`) that records
 * every call and answers like Slack, and requests to Heed signed exactly as Slack signs them.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall {
  method: string;
  token: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** What the fake answered (`ts` of a posted message). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  answer?: any;
}

export interface FakeSlack {
  /** The Web API base, for `apiUrl`. */
  apiUrl: string;
  /** What Heed sent: posts, updates, ephemeral notes, modals. */
  calls: SlackCall[];
  /** The adapter's look-ups (`auth.test`, `users.info`): answered, and kept apart from what Heed sent. */
  lookups: SlackCall[];
  /** Calls refused during an outage, by method. */
  refused: string[];
  /** Answers every call with HTTP 503 while true (an outage). */
  down: boolean;
  of(method: string): SlackCall[];
  until(check: (calls: SlackCall[]) => boolean, timeoutMs?: number): Promise<SlackCall[]>;
  close(): Promise<void>;
}

/** The thread each posted message is in (its `thread_ts`), by its ts: Slack names it in a click on the message. */
const threadOfPost = new Map<string, string>();

export async function fakeSlack(port = 0): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const lookups: SlackCall[] = [];
  const refused: string[] = [];
  let ts = 1_700_000_100;
  const state = { down: false };
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0];
      if (state.down) {
        refused.push(method);
        response.writeHead(503).end();
        return;
      }
      // The Web API client sends form fields, with objects (blocks, view) as JSON strings.
      const body: Record<string, unknown> = /json/.test(request.headers['content-type'] ?? '')
        ? JSON.parse(raw || '{}')
        : Object.fromEntries(new URLSearchParams(raw));
      for (const [key, value] of Object.entries(body)) {
        if (typeof value === 'string' && /^[[{]/.test(value)) body[key] = JSON.parse(value);
      }
      const call: SlackCall = { method, token: request.headers.authorization?.replace(/^Bearer /, ''), body };
      const answer =
        method === 'chat.postMessage'
          ? { ok: true, channel: body.channel, ts: `${ts++}.000100`, message: { text: body.text } }
          : method === 'chat.update'
            ? { ok: true, channel: body.channel, ts: body.ts }
            : method === 'chat.postEphemeral'
              ? { ok: true, message_ts: `${ts++}.000200` }
              : method === 'views.open'
                ? { ok: true, view: { id: `V${ts++}` } }
                : method === 'auth.test'
                  ? { ok: true, user_id: 'UBOT', user: 'heed', bot_id: 'BBOT', team_id: 'T1' }
                  : method === 'users.info'
                    ? { ok: true, user: { id: body.user, name: String(body.user).toLowerCase() } }
                    : { ok: false, error: 'unknown_method' };
      if (method === 'chat.postMessage') {
        const posted = (answer as { ts: string }).ts;
        if (typeof body.thread_ts === 'string') threadOfPost.set(posted, body.thread_ts);
        else threadOfPost.delete(posted);
      }
      call.answer = answer;
      (method === 'auth.test' || method === 'users.info' ? lookups : calls).push(call);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  const fake: FakeSlack = {
    apiUrl: `http://127.0.0.1:${address.port}/api/`,
    calls,
    lookups,
    refused,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    of: (method) => calls.filter((call) => call.method === method),
    async until(check, timeoutMs = 10_000) {
      const stop = Date.now() + timeoutMs;
      while (!check(calls)) {
        if (Date.now() > stop)
          throw new Error(`fake Slack: timed out; calls so far: ${JSON.stringify(calls.map((call) => call.method))}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return calls;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}

/** Slack's signature: `v0=` + HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the signing secret. */
export function slackHeaders(
  secret: string,
  body: string,
  contentType: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return {
    'content-type': contentType,
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': signature,
  };
}

/** Posts to Heed's Slack endpoint as Slack would: an event (JSON) or an interaction (form-encoded `payload=`). */
export async function sendToHeed(
  baseUrl: string,
  secret: string,
  payload: unknown,
  options: { form?: boolean; timestamp?: number; signature?: string } = {},
): Promise<{ status: number; text: string; body: unknown }> {
  const body = options.form
    ? new URLSearchParams({ payload: JSON.stringify(payload) }).toString()
    : JSON.stringify(payload);
  const headers = slackHeaders(
    secret,
    body,
    options.form ? 'application/x-www-form-urlencoded' : 'application/json',
    options.timestamp,
  );
  if (options.signature) headers['x-slack-signature'] = options.signature;
  const response = await fetch(`${baseUrl}/api/channels/slack/events`, { method: 'POST', headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, text, body: parsed };
}

let eventNumber = 0;

/** An `app_mention` event callback, as Slack delivers it. */
export function mention(
  text: string,
  options: { user?: string; ts?: string; threadTs?: string; eventId?: string; team?: string; channel?: string } = {},
) {
  const ts = options.ts ?? `1700000000.${String(++eventNumber).padStart(6, '0')}`;
  return {
    type: 'event_callback',
    team_id: options.team ?? 'T1',
    api_app_id: 'A1',
    event_id: options.eventId ?? `Ev${Date.now()}${eventNumber}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ user_id: 'UBOT', is_bot: true }],
    event: {
      type: 'app_mention',
      user: options.user ?? 'U1',
      text: `<@UBOT> ${text}`,
      ts,
      ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      channel: options.channel ?? 'C1',
      team: options.team ?? 'T1',
    },
  };
}

/** A click on a button of a posted message, as Slack sends it (`block_actions`). */
export function click(
  message: {
    ts: string;
    /** The thread it is in, when the fake did not post it (it remembers those it did). */
    thread_ts?: string;
    blocks: Array<{ elements?: Array<{ action_id: string; value?: string; text?: { text: string } }> }>;
  },
  label: string,
  user: string,
  channel = 'C1',
  team = 'T1',
) {
  const button = message.blocks
    .flatMap((block) => block.elements ?? [])
    .find((element) => element.text?.text === label);
  if (!button) throw new Error(`no button "${label}"`);
  const thread = message.thread_ts ?? threadOfPost.get(message.ts);
  return {
    type: 'block_actions',
    trigger_id: `trigger-${Date.now()}`,
    user: { id: user, team_id: team },
    team: { id: team },
    channel: { id: channel },
    container: {
      type: 'message',
      channel_id: channel,
      message_ts: message.ts,
      ...(thread ? { thread_ts: thread } : {}),
    },
    message: { ts: message.ts, ...(thread ? { thread_ts: thread } : {}) },
    actions: [{ action_id: button.action_id, value: button.value, type: 'button' }],
  };
}
