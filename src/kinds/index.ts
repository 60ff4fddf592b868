import { z } from 'zod';
import type { ActionRecordOf, CancelledResolution } from '../protocol/action-base.js';
import { approval } from './approval.js';
import { clientTool } from './client-tool.js';
import type {
  ActionKind,
  BatchAnswer,
  BatchDecision,
  DetailLine,
  KindPresentation,
  OneClickAnswer,
  OneClickChoice,
} from './kind.js';
import { question } from './question.js';
import { url } from './url.js';
import { expiresInMinutesField, raiseShape, type Raise, type RaiseShape } from './raise.js';

export type {
  AccessContext,
  ActionKind,
  AnswerContext,
  BatchAnswer,
  BatchDecision,
  CheckedResolution,
  Choice,
  DetailLine,
  KindAction,
  KindPresentation,
  KindTypes,
  LapsedAnswer,
  ModelReads,
  OneClickAnswer,
  OneClickChoice,
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

/** The action's answer when it is one of its own kind's (not a withdrawal), typed as that kind's. */
export function ownResolution<V extends ActionView>(
  action: V,
  resolution: StoredResolution | undefined = action.resolution,
): TypesFor<V['kind']>['stored'] | undefined {
  // A resolution whose `type` is the action's kind is that kind's stored answer; TypeScript cannot follow the two together.
  return resolution?.type === action.kind ? (resolution as TypesFor<V['kind']>['stored']) : undefined;
}

/** Whether nobody answered the action in time: it lapsed (or a lapse answered it, under `deny`). */
export function lapsed(action: Pick<ActionView, 'status' | 'channel'>): boolean {
  return action.status === 'expired' || action.channel === 'timeout';
}

/**
 * How a settled action ended, in a few words: its kind's `outcome` (`Allowed`, `Skipped`), `Lapsed` when
 * nobody answered in time, `Closed without an answer` once withdrawn. `resolution` is the action's own
 * unless given (an event's, for a view read before it).
 */
export function outcomeOf(action: ActionView, resolution: StoredResolution | undefined = action.resolution): string {
  if (lapsed(action)) return 'Lapsed';
  const own = ownResolution(action, resolution);
  return own ? presentationOf(action.kind).outcome(own) : 'Closed without an answer';
}

/**
 * How a settled action ended, in one line (its kind's `describeResolution`): `Allowed`,
 * `Denied ("not today")`, `Answered (Size: Large)`, `Lapsed: nobody answered in time`. What the terminal
 * inbox, the console, Slack and heed/react say of a settled request.
 */
export function describeResolution(
  action: ActionView,
  resolution: StoredResolution | undefined = action.resolution,
): string {
  if (lapsed(action)) return 'Lapsed: nobody answered in time';
  if (resolution === undefined && action.status !== 'cancelled') return 'Settled';
  const own = ownResolution(action, resolution);
  if (!own) return 'Closed without an answer';
  const presentation = presentationOf(action.kind);
  return presentation.describeResolution ? presentation.describeResolution(action, own) : presentation.outcome(own);
}

/** Whether the action's answer changed what it asked (its kind's `changedByAnswer`): an allow with edited arguments. */
export function changedByAnswer(action: ActionView): boolean {
  const own = ownResolution(action);
  return own !== undefined && (presentationOf(action.kind).changedByAnswer?.(own) ?? false);
}

/** Who answers the action when a person does not (its kind's `answeredBy`: a client tool's page); undefined for a person. */
export function answeredByOf(action: ActionView): string | undefined {
  return presentationOf(action.kind).answeredBy;
}

/** The action in full, line by line (its kind's `detailLines`, else its title and summary). */
export function detailLinesOf(action: ActionView): DetailLine[] {
  const presentation = presentationOf(action.kind);
  return presentation.detailLines
    ? presentation.detailLines(action)
    : [{ text: presentation.title(action), tone: 'strong' }, { text: presentation.summary(action) }];
}

/** How far an action decided by several answers has got (its kind's `progress`: an approval's votes); undefined when one answer decides it. */
export function progressOf(action: ActionView): string | undefined {
  return presentationOf(action.kind).progress?.(action);
}

/** The answers the action's notification buttons send (its kind's `oneClickAnswers`); empty when a tap must open it. */
export function oneClickAnswersOf(action: ActionView): OneClickAnswer[] {
  return presentationOf(action.kind).oneClickAnswers?.(action) ?? [];
}

/** The choice an answer page's address carries for the action (its kind's `oneClickChoice`), if it names one. */
export function oneClickChoiceOf(action: ActionView, params: URLSearchParams): OneClickChoice<TypesFor> | undefined {
  return presentationOf(action.kind).oneClickChoice?.(action, params) as OneClickChoice<TypesFor> | undefined;
}

/**
 * What Approve all or Deny all of an inbox sends for the action (its kind's `batch`), or why it leaves it
 * out: a kind with no `batch` (a page's tool, answered by the page) takes no answer in a batch.
 */
export function batchAnswerOf(action: ActionView, decision: BatchDecision): BatchAnswer {
  const presentation = presentationOf(action.kind);
  if (!presentation.batch) {
    return {
      refused: `${presentation.answeredBy ? `Answered by ${presentation.answeredBy}` : 'Answered on its own page'}, not in a batch.`,
    };
  }
  return presentation.batch(action, decision) as BatchAnswer;
}

/** One line under the action's headline in a list (its kind's `detail`), if its kind has one. */
export function detailOf(action: ActionView): string | undefined {
  return presentationOf(action.kind).detail?.(action);
}

/** What a search of a list matches in the action besides its kind, agent, tool, title and summary (its kind's `searchText`). */
export function searchTextOf(action: ActionView): string[] {
  const found = presentationOf(action.kind).searchText?.(action) ?? [];
  return found.filter((text): text is string => typeof text === 'string');
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

/** How the kind is written outside a running tool: its own `raise`, else its stored request's shape with a lapse time. */
export function raiseOf(kind: ActionKind<TypesFor>): RaiseShape {
  return (
    kind.raise ??
    raiseShape(
      kind.wire.request.extend({ expiresInMinutes: expiresInMinutesField }),
      ({ expiresInMinutes, ...raised }) => ({
        raised,
        ...(typeof expiresInMinutes === 'number' ? { expiresInMinutes } : {}),
      }),
    )
  );
}

const raiseUnion = (list: Array<ActionKind<TypesFor>>) =>
  z.discriminatedUnion('kind', nonEmpty(list.map((kind) => raiseOf(kind).shape)));

/** A request as a handler or a remote agent writes it (`pendingActions`): any kind's. */
export const agentRequest = raiseUnion(allKinds());

/** A request as a backend writes it (`POST /api/requests`, MCP): the kinds a tool may raise. */
export const backendRequest = raiseUnion(allKinds().filter((kind) => kind.raisedByTools));

/** What a written request (parsed by one of the two above) becomes, by its kind. */
export function readRaised(request: Record<string, unknown>): Raise {
  return raiseOf(kindOf(request.kind as KindName)).read(request);
}
