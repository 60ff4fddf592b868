import type { UIMessageChunk } from 'ai';
import { z } from 'zod';
import type { TurnResult } from '../engine/turn/run-turn.js';
import { checkMessageContent } from '../engine/send.js';
import type { Caller } from '../caller.js';
import { HeedError } from '../errors.js';
import type { FollowFlow } from '../engine/follow.js';
import type { ConversationSnapshot, Heed } from '../heed.js';
import type { JsonValue } from '../types.js';
import { actionView } from '../views.js';
import { findAnswers, type FoundAnswer, type SentPart } from './ai-sdk/answers.js';
import { answerChildThroughLead, childActionsOnLeadCalls } from './ai-sdk/child-answers.js';
import { uiMessages } from './ai-sdk/ui-messages.js';
import { liveMessages } from '../engine/replaced.js';
import { UiChunkStream, type UiStreamOptions } from './ai-sdk/ui-stream.js';
import { toHeedError } from './errors.js';
import { defineRoute, type Route, type Served } from './route.js';
import { sseResponse } from './sse.js';
import { relayTurnEvents, untilRecorded } from './turn-stream.js';
import type { HeedHooks } from '../hooks.js';

/*
 * The AI SDK 6 chat endpoint: `useChat` with `DefaultChatTransport({ api: '/api/ai-sdk/chat/<agent>' })`
 * talks to Heed. The chat id is the conversation id. A request whose last message is the user's sends
 * it; one whose last message is the assistant's carries answers (`addToolOutput`,
 * `addToolApprovalResponse`), each settled against the stored action of its tool call. Either way the
 * response is the turn as a UI message stream. See docs/ai-sdk.md.
 */

const agentParams = z.object({ agent: z.string().min(1).max(200) });
const chatParams = agentParams.extend({ id: z.string().min(1).max(200) });

const sentMessage = z.looseObject({
  id: z.string().optional(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(z.looseObject({ type: z.string() })),
});

export const aiSdkChatBody = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,128}$/)
      .describe('The chat id, which is the Heed conversation id; a new one starts a conversation owned by the caller.'),
    messages: z
      .array(sentMessage)
      .min(1)
      .describe('The chat as `useChat` holds it. Only the last message is read, so a client may send just that one.'),
    trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
    messageId: z.string().optional(),
  })
  .describe("`DefaultChatTransport`'s request body; other fields are ignored.");

const uiMessagesResponse = z.object({
  messages: z.array(
    z.looseObject({
      id: z.string(),
      role: z.enum(['user', 'assistant']),
      parts: z.array(z.looseObject({ type: z.string() })),
    }),
  ),
});

const streamDescription =
  'The AI SDK UI message stream (`x-vercel-ai-ui-message-stream: v1`): `start`, a `start-step`/`finish-step` pair per model call, ' +
  'text deltas, `tool-input-available` per tool call (a pending question, client tool or URL stays in `input-available`), ' +
  '`tool-approval-request` per pending approval, tool outputs, then `finish`; a failed turn ends with an `error` chunk.';

export const aiSdkChatRoutes: Route[] = [
  defineRoute(
    {
      method: 'post',
      path: '/api/ai-sdk/chat/:agent',
      operationId: 'aiSdkChat',
      summary: 'AI SDK `useChat` endpoint: send a message or answer what the agent asked',
      description:
        "If the last message is the user's, it is sent (409 `action_pending` while a request is open); with `trigger: 'regenerate-message'` " +
        "(`regenerate()`) it must be the conversation's last message, whose reply is made again (the old reply stays in the record). If it is the assistant's, " +
        'each tool part answered with `addToolOutput` or `addToolApprovalResponse` settles the pending action of its tool call, ' +
        "checked against the stored call (the browser's copy of the input is ignored): question output `{ answers }`, " +
        '`{ skip: true }` or `{ dismiss: true }` (an `output-error` dismisses); client tool `output` or `errorText`; approval ' +
        '`{ approved, reason }`. Errors before anything is recorded are HTTP errors with the usual error body (the codes of docs/concepts.md, same order).',
      tag: 'ai-sdk',
      params: agentParams,
      body: aiSdkChatBody,
      responses: { 200: { description: 'The turn as a UI message stream.', events: streamDescription } },
      errors: [
        'invalid_request',
        'unauthorized',
        'not_found',
        'action_not_pending',
        'action_expired',
        'action_forbidden',
        'invalid_resolution',
        'invalid_client_tool_result',
        'budget_reached',
        'message_limit_reached',
        'action_pending',
        'chat_id_taken',
        'conversation_busy',
        'channel_chat',
        'payload_too_large',
        'rate_limited',
      ],
    },
    async ({ heed, host, caller, params, body, signal, countNewConversation }) => {
      const last = body.messages[body.messages.length - 1];
      if (body.trigger === 'regenerate-message')
        return regenerate({ heed, host }, caller, params.agent, body.id, last, signal);
      if (last.role === 'user')
        return sendMessage({ heed, host }, caller, params.agent, body.id, last.parts, signal, countNewConversation);
      if (last.role === 'assistant')
        return sendAnswers({ heed, host }, caller, params.agent, body.id, last.parts, signal);
      throw new HeedError(
        'invalid_request',
        "The last message must be the user's (a new message) or the assistant's (answers).",
        {
          details: { field: 'body.messages' },
        },
      );
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/ai-sdk/chat/:agent/:id/messages',
      operationId: 'aiSdkChatMessages',
      summary: 'The conversation as AI SDK UI messages, for `useChat({ messages })` after a reload',
      description:
        'One assistant message per reply, one step per model call; open requests are tool parts in `input-available` ' +
        '(questions, client tools, URLs) or `approval-requested` (approvals), so a reloaded page can answer them. ' +
        'A chat that does not exist yet (or that the caller may not see) has no messages: `{ messages: [] }`, and nothing is created.',
      tag: 'ai-sdk',
      params: chatParams,
      responses: { 200: { description: 'The messages.', schema: uiMessagesResponse } },
      errors: ['unauthorized', 'chat_id_taken'],
    },
    async ({ heed, host, caller, params }) => {
      const snapshot = await existingConversation(heed, caller, params.agent, params.id);
      if (!snapshot) return Response.json({ messages: [] });
      // A reply made again replaces the old one in the chat, as useChat showed it (the record keeps both).
      const children = snapshot.pendingActions?.some((action) => action.via)
        ? await childActionsOnLeadCalls(host, params.id)
        : [];
      return Response.json({
        messages: uiMessages(liveMessages(snapshot.messages), host.agents.get(params.agent), children),
      });
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/ai-sdk/chat/:agent/:id/stream',
      operationId: 'aiSdkChatResume',
      summary: 'Where `useChat({ resume: true })` reconnects: there is never a stream to resume (204)',
      description: 'A turn runs on without its client; reload the messages to see where it got to.',
      tag: 'ai-sdk',
      params: chatParams,
      responses: { 204: { description: 'Nothing to resume.' } },
      errors: ['unauthorized', 'chat_id_taken'],
    },
    async ({ heed, caller, params }) => {
      // A new chat has nothing to resume either: the same 204, so `resume: true` on a new page logs no error.
      await existingConversation(heed, caller, params.agent, params.id);
      return new Response(null, { status: 204 });
    },
  ),
];

/**
 * The conversation the caller may see, for this agent; with `create`, a new one owned by the caller when the id
 * is free (`create` is called first: it counts the new conversation against the caller's limit).
 */
export async function openConversation(
  heed: Heed,
  caller: Caller,
  agent: string,
  id: string,
  create: false | (() => void),
): Promise<ConversationSnapshot> {
  const handle = heed.conversation(id);
  let snapshot: ConversationSnapshot;
  try {
    snapshot = await handle.get({ caller });
  } catch (thrown) {
    if (!create || !HeedError.isInstance(thrown) || thrown.code !== 'not_found') throw thrown;
    create();
    try {
      await heed.createConversation({ agent, id, caller });
    } catch (creating) {
      // Taken meanwhile (or someone else's): whether the caller may use it is decided by reading it.
      if (!HeedError.isInstance(creating) || creating.details?.reason !== 'exists') throw creating;
    }
    snapshot = await handle.get({ caller });
  }
  // The chat id is chosen by the client: an anonymous caller could start a chat under an id and get a
  // signed-in user to write into it (and then read what they wrote). A signed-in caller therefore never
  // uses an ownerless conversation here; `useChat` makes a new random id per chat, so this refusal only
  // meets an id someone else picked.
  if (caller.userId !== null && snapshot.conversation.ownerId === null) {
    throw new HeedError(
      'chat_id_taken',
      'This chat id belongs to a conversation started without signing in, which a signed-in user cannot join; start a new chat.',
      {
        details: { conversationId: id },
      },
    );
  }
  if (snapshot.conversation.agent !== agent) {
    throw new HeedError('not_found', `There is no conversation with that id for the agent "${agent}".`, {
      details: { conversationId: id },
    });
  }
  return snapshot;
}

/**
 * The conversation as `openConversation` opens it, or undefined when there is none the caller may see:
 * a chat not started yet, another agent's, and someone else's all look the same.
 */
async function existingConversation(
  heed: Heed,
  caller: Caller,
  agent: string,
  id: string,
): Promise<ConversationSnapshot | undefined> {
  try {
    return await openConversation(heed, caller, agent, id, false);
  } catch (thrown) {
    if (HeedError.isInstance(thrown) && thrown.code === 'not_found') return undefined;
    throw thrown;
  }
}

async function sendMessage(
  { heed, host }: Served,
  caller: Caller,
  agent: string,
  id: string,
  parts: SentPart[],
  signal: AbortSignal,
  countNewConversation: () => void,
): Promise<Response> {
  const content = textOf(parts);
  if (content.trim() === '') {
    throw new HeedError('invalid_request', 'The new message has no text.', { details: { field: 'body.messages' } });
  }
  // Checked before the conversation is created: a refused request changes nothing.
  checkMessageContent(content, 'body.messages');
  await openConversation(heed, caller, agent, id, countNewConversation);
  const handle = heed.conversation(id);
  // useChat shows the reply to the message it sent: a message it could not follow is refused (409), never queued.
  return streamTurn(
    host,
    id,
    (recorded) => handle.send(content, { caller, busyPolicy: 'reject', onRecorded: (info) => recorded(info.eventSeq) }),
    {
      agent: host.agents.get(agent),
      newMessage: true,
      signal,
    },
  );
}

/**
 * `regenerate()`: useChat drops the last reply and sends the chat up to the user message before it. The
 * turn runs again from that message (recorded again, marked `regenerates`; the old reply stays in the
 * record), and streams like a new message's.
 */
async function regenerate(
  { heed, host }: Served,
  caller: Caller,
  agent: string,
  id: string,
  last: z.output<typeof sentMessage>,
  signal: AbortSignal,
): Promise<Response> {
  if (last.role !== 'user') {
    throw new HeedError(
      'invalid_request',
      "To make a reply again, the chat's last message must be the user's message it answers.",
      { details: { field: 'body.messages' } },
    );
  }
  await openConversation(heed, caller, agent, id, false);
  const content = textOf(last.parts);
  const handle = heed.conversation(id);
  return streamTurn(
    host,
    id,
    (recorded) => handle.regenerate({ caller, content, onRecorded: (info) => recorded(info.eventSeq) }),
    {
      agent: host.agents.get(agent),
      newMessage: true,
      signal,
    },
  );
}

/** The text of a sent message, its text parts joined by line breaks (as `sendMessage` records it). */
function textOf(parts: SentPart[]): string {
  return parts
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

async function sendAnswers(
  { heed, host }: Served,
  caller: Caller,
  agent: string,
  id: string,
  parts: SentPart[],
  signal: AbortSignal,
): Promise<Response> {
  const snapshot = await openConversation(heed, caller, agent, id, false);
  const actions = [
    ...snapshot.messages.flatMap((message) => message.metadata?.actions ?? []),
    // A child's request, answered on the lead's `agent_<name>` part (./ai-sdk/child-answers.ts).
    ...(snapshot.pendingActions?.some((action) => action.via) ? await childActionsOnLeadCalls(host, id) : []),
  ];
  const found = findAnswers(parts, actions);
  // Nothing open is answered: one answer to a settled request is enough to report its outcome (409/410).
  const answers: FoundAnswer[] = found.open.length > 0 ? found.open : found.settled.slice(0, 1);
  if (answers.length === 0) {
    const waiting = snapshot.pendingActions?.map((action) => action.id) ?? [];
    throw new HeedError(
      'invalid_request',
      waiting.length > 0
        ? 'The last assistant message answers none of the requests this conversation waits on.'
        : 'Nothing in this conversation waits for an answer; send a new message instead.',
      { details: { field: 'body.messages', pendingActionIds: waiting } },
    );
  }
  const handle = heed.conversation(id);
  const run = async (recorded: (eventSeq: number) => void): Promise<TurnResult> => {
    let result: TurnResult | undefined;
    let closed = false;
    for (const answer of answers) {
      if (closed) break;
      if (answer.action.via) {
        const child = await answerChildThroughLead(host, heed, id, answer, caller, recorded, signal);
        result = child.result;
        closed = child.closed;
        continue;
      }
      result = await handle.resolve(answer.action.id, answer.resolution, {
        caller,
        onRecorded: (info) => {
          if (!info.closesPause) return;
          closed = true;
          recorded(info.eventSeq);
        },
      });
    }
    return result!;
  };
  const knownCalls = parts.flatMap((part) => (typeof part.toolCallId === 'string' ? [part.toolCallId] : []));
  return streamTurn(host, id, run, { agent: host.agents.get(agent), newMessage: false, knownCalls, signal });
}

/**
 * Runs a message or answers; once the one that starts the turn is recorded, streams the turn's events
 * from the log as UI message chunks until it pauses or ends. Answers that leave requests open start no
 * turn: their response is an empty message (`start`, `finish`). Errors before anything is recorded are
 * thrown, so they become HTTP errors. The turn runs detached: a client that leaves does not stop it.
 */
async function streamTurn(
  hooks: HeedHooks,
  conversationId: string,
  run: (recorded: (eventSeq: number) => void) => Promise<TurnResult>,
  options: Omit<UiStreamOptions, 'actions' | 'storedCalls'> & { signal: AbortSignal },
): Promise<Response> {
  const { running, first } = await untilRecorded(run);
  const { signal, ...given } = options;
  const streamOptions: UiStreamOptions = given;
  if (first === undefined) {
    const result = await running;
    return uiStreamResponse(async (send) => new UiChunkStream(send, streamOptions).end(result), signal);
  }

  if (!options.newMessage) {
    // A continuation may come back to calls the client already shows: it needs how each was answered and its input.
    const [records, messages] = await Promise.all([
      hooks.store.listActions(conversationId),
      hooks.store.listMessages(conversationId),
    ]);
    streamOptions.actions = records.map((record) => actionView(hooks, record, options.agent?.name));
    streamOptions.storedCalls = messages.flatMap((message) =>
      message.parts.flatMap((part) =>
        part.type === 'tool-call'
          ? [{ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input as JsonValue }]
          : [],
      ),
    );
  }
  return uiStreamResponse(async (send, streamSignal, flow) => {
    const ui = new UiChunkStream(send, streamOptions);
    const result = await relayTurnEvents(hooks, conversationId, first, running, {
      deliver: (event) => !ui.ended && (ui.handle(event), true),
      ended: () => ui.ended,
      signal: streamSignal,
      flow,
      pageSize: 500,
    });
    if (result) ui.end(result);
  }, signal);
}

/** A UI message stream response: SSE `data:` lines of JSON chunks, then `[DONE]`; a failure becomes an `error` chunk. */
function uiStreamResponse(
  produce: (send: (chunk: UIMessageChunk) => void, signal: AbortSignal, flow: FollowFlow) => Promise<void>,
  signal: AbortSignal,
): Response {
  const response = sseResponse(
    async (writer) => {
      const send = (chunk: UIMessageChunk) => writer.send({ data: JSON.stringify(chunk) });
      try {
        await produce(send, writer.signal, writer);
      } catch (thrown) {
        if (!HeedError.isInstance(thrown)) console.error('heed: an AI SDK chat stream failed', thrown);
        send({ type: 'error', errorText: toHeedError(thrown).message });
      }
      writer.send({ data: '[DONE]' });
    },
    { signal },
  );
  response.headers.set('x-vercel-ai-ui-message-stream', 'v1');
  return response;
}
