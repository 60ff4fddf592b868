import { runClaimedTurn } from '../agent/start.js';
import type { TurnResult } from '../agent/run-turn.js';
import { callerLabel, type Caller } from '../caller.js';
import { defaults, earliestDue, mayAccess, type Engine } from '../engine.js';
import { HeedError } from '../errors.js';
import { newId } from '../ids.js';
import type { Change } from '../store/store.js';
import type { ActionRecord, ConversationRecord, JsonObject } from '../types.js';
import { actionView } from '../views.js';
import { checkResolution } from './validate-resolution.js';

export interface SettleOptions {
  /** Who answers; omitted = the library acting as the conversation's owner. */
  caller?: Caller;
  /** `http` refuses conversations that live in a channel. */
  via?: 'library' | 'http';
  /** Called once the answer is recorded, before the continuation runs (a stream subscribes here). */
  onRecorded?: (info: { closesPause: boolean; eventSeq: number }) => void;
}

/** While other actions of the pause are still open, the answer's response says what is left. */
export type SettleResult = TurnResult;

/**
 * Settles one action. Checks run in a fixed order: 404 → 409 `action_not_pending` → 410 → 403 →
 * 400 → 402. The answer is recorded with compare-and-set; an answer that meets another one being
 * recorded retries for up to `hitl.resolveWaitMs`. The answer that closes the pause claims the
 * continuation in the same write, so exactly one continuation runs.
 */
export async function settleAction(engine: Engine, conversationId: string, actionId: string, raw: unknown, options: SettleOptions = {}): Promise<SettleResult> {
  const waitUntil = Date.now() + (engine.hitl.resolveWaitMs ?? defaults.resolveWaitMs);
  for (let attempt = 0; ; attempt++) {
    // The conversation first, then its actions: a write between the two reads bumps the version read
    // first, so the compare-and-set below refuses an answer computed from stale actions. (Reading both
    // at once loses that: it let a pause end up waiting with nothing pending.)
    const conversation = await findConversation(engine, conversationId, options.caller);
    const actions = await engine.store.listActions(conversationId);
    const action = actions.find((entry) => entry.id === actionId);
    if (!action) throw new HeedError('not_found', 'There is no action with that id in this conversation.', { details: { actionId } });
    await checkOpen(engine, conversation, action, options);

    const agent = engine.agents.get(conversation.agent);
    const checked = checkResolution(agent, action, raw, engine.limits);
    const others = actions.filter((entry) => entry.status === 'pending' && entry.id !== action.id);
    const closes = others.length === 0;
    if (closes && !engine.budgetLeft(conversation)) throw engine.budgetError(conversation);

    const at = engine.now();
    const resolvedBy = callerLabel(options.caller ?? { userId: conversation.ownerId });
    const change: Change = {
      conversationId,
      expectVersion: conversation.version,
      settle: [{ id: action.id, status: 'resolved', resolution: checked.stored, resolvedBy, resolvedAt: at, defaulted: checked.defaulted }],
      events: [
        {
          type: 'action.resolved',
          at,
          data: resolvedEvent(action, checked.eventStatus, resolvedBy, checked.stored as unknown as JsonObject),
        },
      ],
      set: { updatedAt: at },
    };
    if (checked.toolOutput) {
      // The page's output becomes the tool result now; the record keeps only its size.
      const position = (await engine.store.listMessages(conversationId)).length;
      change.messages = [
        {
          id: newId('m'),
          conversationId,
          position,
          role: 'tool',
          parts: [{ type: 'tool-result', toolCallId: action.toolCallId, toolName: action.toolName, output: checked.toolOutput }],
          metadata: null,
          createdAt: at,
        },
      ];
      const bytes = checked.stored.type === 'client_tool' && 'outputBytes' in checked.stored ? checked.stored.outputBytes : undefined;
      change.events!.push({
        type: 'tool.result',
        at,
        data: { toolCallId: action.toolCallId, toolName: action.toolName, isError: checked.toolOutput.type === 'error-text', ...(bytes !== undefined ? { outputBytes: bytes } : { output: checked.toolOutput as unknown as JsonObject }) },
      });
    }
    if (checked.remember) change.remember = [{ toolName: action.toolName, rememberedBy: resolvedBy, rememberedAt: at }];
    const leaseOwner = newId('lease');
    if (closes) {
      change.set = { ...change.set, status: 'running', leaseOwner, leaseExpiresAt: engine.leaseUntil(), actionDueAt: null };
      change.events!.push({ type: 'turn.started', at, data: { trigger: 'answer' } });
    } else {
      change.set = { ...change.set, actionDueAt: earliestDue(others) };
    }

    const result = await engine.commit(change);
    if (!result.ok) {
      if (Date.now() < waitUntil) {
        // Another answer was being recorded; look again (it may have settled this very action).
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt * 3 + Math.random() * 5)));
        continue;
      }
      throw new HeedError('conversation_busy', 'The conversation kept changing while the answer was being recorded; send it again.');
    }
    options.onRecorded?.({ closesPause: closes, eventSeq: result.events[0].seq });
    if (!closes) {
      return {
        status: 'requires_action',
        conversationId,
        messages: [],
        pendingActions: others.map((entry) => actionView(engine, entry, conversation.agent)),
      };
    }
    // The turn starts from what this answer just read and wrote, instead of reading it again.
    const settled = actions.map((entry) => (entry.id === action.id ? { ...entry, ...change.settle![0] } : entry));
    return runClaimedTurn(engine, result.conversation, leaseOwner, { caller: options.caller ?? null, interactive: true, actions: settled });
  }
}

async function findConversation(engine: Engine, conversationId: string, caller: Caller | undefined): Promise<ConversationRecord> {
  const conversation = await engine.store.getConversation(conversationId);
  // With an authorizeResolve hook the hook decides who may answer (checked below, as 403).
  const visible = conversation && (engine.hitl.authorizeResolve || mayAccess(caller, conversation));
  if (!conversation || !visible) {
    throw new HeedError('not_found', 'There is no conversation with that id.', { details: { conversationId } });
  }
  return conversation;
}

async function checkOpen(engine: Engine, conversation: ConversationRecord, action: ActionRecord, options: SettleOptions): Promise<void> {
  if (action.status === 'expired') throw expired(action);
  if (action.status !== 'pending') {
    throw new HeedError('action_not_pending', 'This action was already settled.', {
      details: { actionId: action.id, status: action.status, resolution: action.resolution, resolvedBy: action.resolvedBy, resolvedAt: action.resolvedAt },
    });
  }
  if (action.expiresAt && action.expiresAt <= engine.now()) throw expired(action);
  if (conversation.channel && options.via === 'http') {
    throw new HeedError('channel_chat', `This conversation lives in ${conversation.channel}; answer it there.`, { details: { channel: conversation.channel } });
  }
  const hook = engine.hitl.authorizeResolve;
  if (hook && !(await hook(options.caller ?? null, { conversation, action }))) {
    throw new HeedError('action_forbidden', 'You may not answer this request.');
  }
  if (action.kind === 'client_tool' && action.request.kind === 'client_tool') {
    const access = engine.agents.get(conversation.agent)?.tools?.[action.toolName]?.client?.access;
    if (access && !(await access({ caller: options.caller ?? null, toolCallId: action.toolCallId, input: action.request.args }))) {
      throw new HeedError('action_forbidden', 'You may not answer this client tool call.');
    }
  }
}

function expired(action: ActionRecord): HeedError {
  return new HeedError('action_expired', 'This request lapsed before it was answered.', {
    details: { actionId: action.id, expiresAt: action.expiresAt, status: action.status, resolution: action.resolution },
  });
}

export function resolvedEvent(action: ActionRecord, status: string, resolvedBy: string, resolution: JsonObject): JsonObject {
  const data: JsonObject = {
    actionId: action.id,
    kind: action.kind,
    toolCallId: action.toolCallId,
    toolName: action.toolName,
    status,
    resolvedBy,
    channel: resolvedBy.startsWith('system') ? (resolvedBy === 'system:timeout' ? 'timeout' : 'system') : 'api',
  };
  if (resolution.type === 'approval') {
    data.decision = resolution.decision;
    if (resolution.approvedArgs !== undefined) data.editedArgs = true;
    if (resolution.remember) data.remember = true;
  }
  if (resolution.type === 'url') data.decision = resolution.decision;
  if (resolution.type === 'client_tool') {
    if ('outputBytes' in resolution) data.outputBytes = resolution.outputBytes;
    if ('error' in resolution) data.error = resolution.error;
  }
  return data;
}
