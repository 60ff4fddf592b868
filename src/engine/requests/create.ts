import { createHmac } from 'node:crypto';
import type { Caller } from '../../caller.js';
import { defaults } from '../../config-schema.js';
import { HeedError } from '../../errors.js';
import { newId } from '../../ids.js';
import { GROUP_PREFIX } from '../../groups.js';
import { checkExternalRequest, type ExternalRequest } from '../../kinds/external-request.js';
import { kindOf, titleOf } from '../../kinds/index.js';
import { newEvent } from '../../protocol/events.js';
import {
  holdsRequest,
  REQUEST_SETTINGS_KEY,
  REQUESTS_AGENT,
  type RequestSettings,
} from '../../protocol/request-conversation.js';
import type { ActionRecord, ConversationRecord, JsonObject, MessageRecord } from '../../types.js';
import { actionView } from '../../views.js';
import { earliestDue, newConversationRecord, type Engine } from '../engine.js';
import { createConversation } from '../transact.js';

/** A request as `POST /api/requests` and `heed.requests.create` take it (its callback is checked before it gets here). */
export interface NewRequest {
  /** Any kind's request as a tool raises it with `ctx.request` (an approval, a question, a URL to open). */
  request: ExternalRequest;
  /** User ids and `group:<name>` entries who may answer it besides the caller; it shows in their inbox. */
  assignees?: string[];
  /** Where the settled action is posted (a host listed in `notify.callbackHosts`). */
  callbackUrl?: string;
  /** When it lapses (ISO time); default its own `expiresInMinutes`, else `hitl.timeoutMinutes`. */
  expiresAt?: string;
  /** The same key from the same caller gives the same request; refused from an anonymous caller. */
  idempotencyKey?: string;
  /**
   * Where in a chat workspace to post it too, as a card people answer there (`<platform>:<place>`, e.g.
   * `telegram:-100123`, `slack:T1:C1`): a configured channel's. Answered there as the Heed person each
   * answerer maps to (docs/channels.md).
   */
  channel?: string;
  metadata?: JsonObject;
  caller?: Caller;
}

export interface CreatedRequest {
  action: ActionRecord;
  conversation: ConversationRecord;
  /** False when the idempotency key named a request made before: that one is returned. */
  created: boolean;
}

/**
 * The action id of a request made with `POST /api/requests`: the id alone finds it (`GET /api/requests/:id`),
 * so it is as hard to guess as a conversation id, and drawn on its own: whoever holds it (an answer link's
 * recipient reads it) learns nothing of the conversation's id, which opens the whole conversation.
 */
function newRequestActionId(): string {
  return `a_${newId('c').slice(2)}`;
}

/**
 * Makes a request in a conversation of its own, owned by the caller, in which no agent runs: one
 * assistant message carrying the call that asked, and the pending action, in one write (which also writes
 * its notifications). With an idempotency key, the conversation's id is derived from the caller and the
 * key, so a second create with both finds the first (the store refuses the same id twice). An anonymous
 * caller's key is refused (400 `invalid_request`).
 */
export async function createRequest(engine: Engine, input: NewRequest): Promise<CreatedRequest> {
  const checked = checkExternalRequest(input.request);
  const ownerId = input.caller ? input.caller.userId : null;
  if (input.idempotencyKey !== undefined && input.caller !== undefined && ownerId === null) {
    // Anonymous callers are all one identity: a key of theirs would name whichever request any of them made
    // with it first, so one could take (and answer) another's. Only the app's own calls (no caller) and
    // signed-in callers have a key space that is theirs alone.
    throw new HeedError(
      'invalid_request',
      'An idempotencyKey needs a signed-in caller: anonymous callers share one identity, so their keys could name each other’s requests. Sign in, or leave the key out.',
      { details: { field: 'idempotencyKey' } },
    );
  }
  const now = engine.clock();
  const at = now.toISOString();
  let expiresAt: string | null;
  if (input.expiresAt !== undefined) {
    const time = Date.parse(input.expiresAt);
    if (Number.isNaN(time) || time <= now.getTime()) {
      throw new HeedError('invalid_request', 'expiresAt must be an ISO time in the future.', {
        details: { field: 'expiresAt' },
      });
    }
    expiresAt = new Date(time).toISOString();
  } else {
    const minutes =
      checked.expiresInMinutes ??
      kindOf(checked.request.kind).deadlineMinutes?.(checked.request) ??
      engine.hitl.timeoutMinutes ??
      defaults.timeoutMinutes;
    expiresAt = engine.expiresAfterMinutes(minutes);
  }
  const assignees = [...new Set(input.assignees ?? [])];
  if (assignees.includes(GROUP_PREFIX)) {
    throw new HeedError(
      'invalid_request',
      `An assignee "${GROUP_PREFIX}" needs a group name after it (${GROUP_PREFIX}finance).`,
      {
        details: { field: 'assignees' },
      },
    );
  }
  const request = assignees.length > 0 ? { ...checked.request, approvers: assignees } : checked.request;

  const conversationId =
    input.idempotencyKey !== undefined ? await keyedId(engine, ownerId, input.idempotencyKey) : newId('c');
  const messageId = newId('m');
  const toolCallId = newId('call');
  const args = 'args' in request && request.args !== undefined ? request.args : {};
  const action: ActionRecord = {
    id: newRequestActionId(),
    conversationId,
    messageId,
    toolCallId,
    toolName: checked.toolName,
    kind: request.kind,
    origin: 'tool',
    journalIndex: 0,
    status: 'pending',
    request,
    createdAt: at,
    expiresAt,
    // No agent reads a lapse here: it is answered as the kind answers one, and the caller sees `expired`.
    onTimeout: 'deny',
    resolution: null,
    resolvedBy: null,
    channel: null,
    resolvedAt: null,
    defaulted: null,
    // No agent: the server's own `hitl.remind`.
    ...engine.reminderTimes(undefined, expiresAt),
  };
  const settings: RequestSettings = {
    ...(input.callbackUrl !== undefined ? { callbackUrl: input.callbackUrl } : {}),
    ...(input.idempotencyKey !== undefined ? { idempotencyKey: input.idempotencyKey } : {}),
    ...(input.channel !== undefined ? { channel: input.channel } : {}),
  };
  const metadata: JsonObject = {
    title: titleOf(actionView(undefined, action)),
    ...input.metadata,
    [REQUEST_SETTINGS_KEY]: { ...settings },
  };
  const record: ConversationRecord = {
    ...newConversationRecord({
      id: conversationId,
      agent: REQUESTS_AGENT,
      ownerId,
      channel: null,
      metadata,
      createdAt: at,
    }),
    status: 'requires_action',
    // The sweep looks at it again at its first reminder or its lapse.
    actionDueAt: earliestDue([action]),
  };
  const message: MessageRecord = {
    id: messageId,
    conversationId,
    position: 0,
    role: 'assistant',
    parts: [{ type: 'tool-call', toolCallId, toolName: action.toolName, input: args }],
    metadata: null,
    createdAt: at,
  };
  const result = await createConversation(engine, {
    conversationId,
    create: record,
    messages: [message],
    actions: [action],
    events: [
      newEvent('message.created', at, { messageId, role: 'assistant' }),
      newEvent('tool.called', at, { messageId, toolCallId, toolName: action.toolName, input: args }),
      newEvent('action.required', at, {
        actionId: action.id,
        kind: action.kind,
        toolCallId,
        toolName: action.toolName,
      }),
    ],
  });
  if (result.ok) return { action, conversation: result.conversation, created: true };
  if (result.reason === 'exists' && input.idempotencyKey !== undefined) {
    const read = await engine.store.readConversation(conversationId, { actions: true });
    // The request's conversation holds its one action.
    const found = read?.actions?.[0];
    if (read && found && holdsRequest(read.conversation) && read.conversation.ownerId === ownerId)
      return { action: found, conversation: read.conversation, created: false };
  }
  throw new HeedError('internal_error', 'The request could not be stored.');
}

/**
 * The conversation id an idempotency key gives for one caller: keyed by a secret of the store, so knowing a
 * caller's key does not give its id. Owner null here is the app's own call (no caller), never an anonymous one.
 */
async function keyedId(engine: Engine, ownerId: string | null, key: string): Promise<string> {
  const secret = await engine.store.secret('request-keys');
  const digest = createHmac('sha256', secret)
    .update(JSON.stringify([ownerId, key]))
    .digest('base64url');
  return `c_${digest.slice(0, 32)}`;
}
