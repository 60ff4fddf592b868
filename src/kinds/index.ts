import { z } from 'zod';
import type { ActionRecordOf, CancelledResolution } from '../protocol/action-base.js';
import { approval } from './approval.js';
import { clientTool } from './client-tool.js';
import type { ActionKind, KindPresentation } from './kind.js';
import { question } from './question.js';
import { url } from './url.js';

export type {
  AccessContext,
  ActionKind,
  AnswerContext,
  CheckedResolution,
  Choice,
  KindAction,
  KindPresentation,
  KindTypes,
  LapsedAnswer,
  ModelReads,
  OneClickLinks,
  ResolvedDetails,
  ResolvedStatus,
  SentToolPart,
} from './kind.js';

/**
 * Every kind of action, by the name an action record, an event and an answer's `type` carry. Registering
 * a kind here is all it takes for the unions below (and so the records, views, answers, events and the
 * OpenAPI document) to include it.
 */
export const kinds = { approval, question, client_tool: clientTool, url };

type Kinds = typeof kinds;
export type KindName = keyof Kinds;

// Fails to compile when a kind is registered under a name other than its own.
type Misnamed = { [K in KindName]: Kinds[K]['kind'] extends K ? never : K }[KindName];
const registeredByName: [Misnamed] extends [never] ? true : never = true;
void registeredByName;

/** The types of the kind `K` names; of every kind, joined, by default. */
export type TypesFor<K extends KindName = KindName> = NonNullable<Kinds[K]['types']>;
/** A request of the kind(s) `K` as stored on an action. */
export type KindRequest<K extends KindName = KindName> = TypesFor<K>['request'];
/** A request as a running tool raises it, before its kind's check. */
export type RaisedRequest<K extends KindName = KindName> = TypesFor<K>['raised'];
/** An answer as a client sent it, once well formed, of the kind(s) `K`. */
export type KindAnswer<K extends KindName = KindName> = TypesFor<K>['answer'];
/** An answer as stored: one of a kind's, or a withdrawal. */
export type StoredResolution = TypesFor['stored'] | CancelledResolution;
/** An action as stored. */
export type ActionRecord = ActionRecordOf<KindName, KindRequest, TypesFor['stored']>;
/** The view of an action of the kind `K`: its kind's fields and, once settled, how (any kind's answer, as documented). */
export type ActionViewOf<K extends KindName> = TypesFor<K>['view'] & { resolution?: StoredResolution };
/** An action as clients see it: the request's fields flattened beside the bookkeeping, a union discriminated by `kind`. */
export type ActionView = { [K in KindName]: ActionViewOf<K> }[KindName];

/** The kind `kind` names, its rules and presentation typed for that kind (or, for a union of names, for any of them). */
export function kindOf<K extends KindName>(kind: K): ActionKind<TypesFor<K>> {
  return kinds[kind] as ActionKind<TypesFor<K>>;
}

/** Every kind, in the order registered. */
export function allKinds(): Array<ActionKind<TypesFor>> {
  return Object.values(kinds);
}

/** A list known to hold at least one entry, as zod's unions want it. */
export function nonEmpty<T>(list: T[]): [T, ...T[]] {
  const [first, ...rest] = list;
  if (first === undefined) throw new Error('No kind of action is registered.');
  return [first, ...rest];
}

/** What a client sends to settle an action, every kind's answer: `type` must equal the action's kind. */
export const answerSchema = joined<KindAnswer>(
  z.discriminatedUnion('type', nonEmpty(allKinds().map((kind) => kind.wire.answer))),
);

/** A union built from the kinds at run time, typed as the union of their types (which TypeScript cannot follow through the list). */
export function joined<T>(schema: z.ZodType): z.ZodType<T> {
  return schema as z.ZodType<T>;
}

/** What a lapse under `deny` answers for this action. */
export function lapsedAnswer(action: ActionRecord) {
  return kindOf(action.kind).lapse(action);
}

/** How actions of the kind `kind` names read to a person. */
export function presentationOf<K extends KindName>(kind: K): KindPresentation<TypesFor<K>> {
  return kindOf(kind).presentation;
}

/** The action in a few words (its kind's `title`). */
export function titleOf(action: ActionView): string {
  return kindOf(action.kind).presentation.title(action);
}

/** What the action asks, in one line (its kind's `summary`). */
export function summaryOf(action: ActionView): string {
  return kindOf(action.kind).presentation.summary(action);
}

/** What the action's kind is called on screen (its kind's `noun`, else its name). */
export function nounOf(action: ActionView): string {
  return kindOf(action.kind).presentation.noun ?? action.kind;
}

/** What the action asks in one line where its kind is shown beside it (its kind's `headline`, else its `summary`). */
export function headlineOf(action: ActionView): string {
  const presentation = kindOf(action.kind).presentation;
  return presentation.headline ? presentation.headline(action) : presentation.summary(action);
}

/** The title of the action's AI SDK tool part, if it has one (its kind's `aiSdkTitle`). */
export function aiSdkTitleOf(action: ActionView): string | undefined {
  return kindOf(action.kind).presentation.aiSdkTitle(action);
}

/** A table of functions by kind, for some kinds: those left out are given to the table's fallback. */
export type ByKind<R, A extends unknown[]> = { readonly [K in KindName]?: (action: ActionViewOf<K>, ...args: A) => R };

/**
 * Calls the function of `table` for the action's kind with the action narrowed to that kind's view, or
 * `fallback` for a kind the table leaves out (a kind added since, say): mail bodies and cards by kind
 * need not switch on it.
 */
export function byKind<R, A extends unknown[]>(
  table: ByKind<R, A>,
  fallback: (action: ActionView, ...args: A) => R,
  action: ActionView,
  ...args: A
): R {
  // The table's entry for `action.kind` takes that kind's view, which `action` is; TypeScript cannot follow the two together.
  const own = table[action.kind] as ((action: ActionView, ...args: A) => R) | undefined;
  return own ? own(action, ...args) : fallback(action, ...args);
}
