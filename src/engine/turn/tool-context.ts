import { checkApprovalPolicy, policyFields } from '../../kinds/approval-policy.js';
import { conversationView } from '../../views.js';
import { kindOf, kinds, type RaisedRequest } from '../../kinds/index.js';
import { HeedError } from '../../errors.js';
import { typedAnswers } from '../../kinds/question/typed.js';
import { argsJsonSchema, type AskOutcome, type ApproveOutcome, type ToolContext } from '../../tool.js';
import { conversationTitle } from '../../protocol/conversation.js';
import type { ActionRecord, ActionRequest } from '../../types.js';
import type { LiveCall } from './live-call.js';
import type { Turn } from './turn.js';

/** Thrown out of `ctx.ask` (and friends) when the answer is not recorded yet: the turn pauses. */
export class AskSignal extends Error {
  constructor(
    readonly request: ActionRequest,
    readonly journalIndex: number,
    readonly expiresInMinutes: number | undefined,
  ) {
    super('Waiting for a person to answer.');
  }
}

/** Thrown out of `ctx.ask` when the person dismissed the question: the call fails and the turn ends. */
export class DismissSignal extends Error {
  constructor() {
    super('Dismissed by the user.');
  }
}

/**
 * Builds the `ctx` a tool's execute gets. Asks are numbered in call order; an ask whose number has a
 * settled action returns that action's answer, so a re-run of the tool reads like straight-line code.
 */
export function toolContext(
  turn: Turn,
  call: { toolCallId: string },
  journal: ActionRecord[],
  live: LiveCall,
): { context: ToolContext; state: { signal?: AskSignal } } {
  const state: { signal?: AskSignal } = {};
  let next = 0;

  const recorded = (kind: ActionRecord['kind'], request: ActionRequest, expiresInMinutes?: number): ActionRecord => {
    const index = next++;
    const entry = journal.find((action) => action.journalIndex === index);
    if (entry) {
      if (entry.kind !== kind) {
        throw new HeedError(
          'invalid_request',
          `This tool asked differently on its re-run (call ${index + 1} was a ${entry.kind}, now a ${kind}): a tool must ask in the same order every time.`,
        );
      }
      return entry;
    }
    state.signal = new AskSignal(request, index, expiresInMinutes);
    throw state.signal;
  };

  const context: ToolContext = {
    conversationId: turn.conversation.id,
    toolCallId: call.toolCallId,
    idempotencyKey: call.toolCallId,
    caller: turn.caller,
    interactive: turn.interactive,
    abortSignal: turn.abort.signal,

    async ask(request): Promise<AskOutcome> {
      const asked = kinds.question.checkRequest({
        kind: 'question',
        preamble: request.preamble,
        questions: request.questions,
      });
      const entry = recorded('question', asked, request.expiresInMinutes);
      const resolution = entry.resolution;
      if (!resolution || resolution.type !== 'question' || 'dismiss' in resolution) throw new DismissSignal();
      const note = 'note' in resolution ? resolution.note : undefined;
      // Declined (seed 004): no answers, not the pre-picked ones the record keeps for the model's summary.
      if ('skip' in resolution) return { answers: {}, skipped: true, defaulted: [], ...(note ? { note } : {}) };
      // The questions as recorded: the answers are theirs.
      const questions = 'questions' in entry.request ? entry.request.questions : [];
      return {
        answers: typedAnswers(questions, resolution.answers),
        skipped: false,
        defaulted: entry.defaulted ?? [],
        ...(note ? { note } : {}),
      };
    },

    async approve(request): Promise<ApproveOutcome> {
      // Already answered (a re-run): what was asked is the journal's, and is not worked out again.
      const journaled = journal.some((action) => action.journalIndex === next);
      let asked: ActionRequest | undefined;
      if (!journaled) {
        if (request.approval) checkApprovalPolicy(request.approval, 'ctx.approve({ approval })');
        const policy = request.approval
          ? await policyFields(request.approval, request.args, conversationView(turn.conversation), turn.engine.clock())
          : {};
        asked = kinds.approval.checkRequest({
          kind: 'approval',
          title: request.title,
          summary: request.summary ?? '',
          args: request.args ?? null,
          canRemember: false,
          ...(request.argsSchema !== undefined ? { argsSchema: argsJsonSchema(request.argsSchema) } : {}),
          ...policy,
        });
      }
      const entry = recorded('approval', asked as ActionRequest, request.expiresInMinutes);
      const resolution = entry.resolution;
      const askedArgs = entry.request.kind === 'approval' ? entry.request.args : null;
      if (!resolution || resolution.type !== 'approval') return { approved: false, args: askedArgs };
      const approved = entry.status === 'resolved' && resolution.decision === 'allow';
      // The edit was checked against argsSchema when it was answered (src/kinds/approval.ts).
      const args = approved && resolution.approvedArgs !== undefined ? resolution.approvedArgs : askedArgs;
      return { approved, args, ...(resolution.comment !== undefined ? { comment: resolution.comment } : {}) };
    },

    async askLive(request) {
      let raised: RaisedRequest;
      if (request.kind === 'question') {
        raised = {
          kind: 'question',
          ...(request.preamble ? { preamble: request.preamble } : {}),
          questions: request.questions,
        };
      } else if (request.kind === 'approval') {
        raised = {
          kind: 'approval',
          title: request.title,
          summary: request.summary ?? '',
          args: request.args ?? null,
          canRemember: false,
        };
      } else {
        raised = { kind: 'url', url: request.url, title: request.title, message: request.message };
      }
      const asked = kindOf(raised.kind).checkRequest(raised);
      const action = await live.ask(asked, request.expiresInMinutes);
      return {
        status: action.status as 'resolved' | 'cancelled' | 'expired',
        resolution: action.resolution,
        defaulted: action.defaulted ?? [],
      };
    },

    async openUrl(request) {
      const asked = kinds.url.checkRequest({
        kind: 'url',
        url: request.url,
        title: request.title,
        message: request.message,
      });
      const entry = recorded('url', asked, request.expiresInMinutes);
      const resolution = entry.resolution;
      return resolution && resolution.type === 'url' ? resolution.decision : 'cancel';
    },

    async request({ expiresInMinutes, ...request }) {
      const kind = kindOf(request.kind);
      if (!kind?.raisedByTools) {
        throw new HeedError(
          'invalid_request',
          `A tool cannot ask for a "${String(request.kind)}" action with ctx.request.`,
          { details: { kind: request.kind } },
        );
      }
      const entry = recorded(request.kind, kind.checkRequest(request), expiresInMinutes);
      return {
        status: entry.status as 'resolved' | 'cancelled' | 'expired',
        resolution: entry.resolution,
        defaulted: entry.defaulted ?? [],
      };
    },

    setTitle(title) {
      const named = typeof title === 'string' ? conversationTitle({ title }) : null;
      if (named === null)
        throw new HeedError('invalid_request', 'ctx.setTitle needs a title with some text.', {
          details: { field: 'title' },
        });
      turn.set({ metadata: { ...(turn.conversation.metadata ?? {}), title: named } });
    },
  };
  return { context, state };
}
