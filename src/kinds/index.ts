import type { ActionKind as KindName, ActionRecord } from '../types.js';
import { approval } from './approval.js';
import { clientTool } from './client-tool.js';
import type { ActionKind } from './kind.js';
import { question } from './question.js';
import { url } from './url.js';

export type {
  AccessContext,
  ActionKind,
  AnswerContext,
  CheckedResolution,
  KindAction,
  KindAnswer,
  KindRequest,
  RaisedRequest,
  LapsedAnswer,
  ModelReads,
  ResolvedStatus,
  SentToolPart,
} from './kind.js';

/** Every kind of action, by the name an action record, an event and an answer's `type` carry. */
export const kinds: { readonly [K in KindName]: ActionKind<K> } = {
  approval,
  question,
  client_tool: clientTool,
  url,
};

/**
 * The rules of the kind `kind` names, for an action of that kind. The registry's entries each take
 * only their own kind; callers pass an action (or answer) whose kind they read from the same record.
 */
export function kindOf<K extends KindName>(kind: K): ActionKind<K> {
  return kinds[kind];
}

/** What a lapse under `deny` answers for this action. */
export function lapsedAnswer(action: ActionRecord) {
  return kindOf(action.kind).lapse(action);
}
