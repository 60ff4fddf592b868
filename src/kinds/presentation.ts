import type { ActionKind as KindName, ActionRequest, StoredResolution } from '../types.js';
import type { ActionView } from '../views.js';
import { clip } from './clip.js';

/*
 * How each kind of action reads to a person: the half of a kind that browsers (src/react/), notifications
 * and the AI SDK rendering share. Type imports only: the server half (./index.ts) loads the RE2 pattern
 * engine, which a browser cannot.
 */

/** The one-click answers an answer link offers: URLs of the answer page with a choice picked. */
export interface OneClickLinks {
  /** An approval's allow and deny (the page still asks to confirm). */
  allow?: string;
  deny?: string;
  /** A question's options: question id → option value → URL. */
  options?: Record<string, Record<string, string>>;
}

/** The view of an action of kind `K`. */
export type ActionViewOf<K extends KindName> = Extract<ActionView, { kind: K }>;

/**
 * Calls the function of `table` for the action's kind with the action narrowed to that kind's view, so
 * that the tables by kind (mail bodies, cards) need not switch on it. A new kind adds its case here.
 */
export function byKind<R, A extends unknown[]>(table: { readonly [K in KindName]: (action: ActionViewOf<K>, ...args: A) => R }, action: ActionView, ...args: A): R {
  switch (action.kind) {
    case 'approval':
      return table.approval(action, ...args);
    case 'question':
      return table.question(action, ...args);
    case 'client_tool':
      return table.client_tool(action, ...args);
    case 'url':
      return table.url(action, ...args);
    default: {
      const unknownKind: never = action;
      return unknownKind;
    }
  }
}

/** How actions of kind `K` read to a person, registered in `presentations` below. */
export interface KindPresentation<K extends KindName = KindName> {
  /** The request in a few words, as a settled card heads it. */
  title: (action: ActionViewOf<K>) => string;
  /** What is asked, in one line, for a notification's subject (after the agent's name). */
  summary: (action: ActionViewOf<K>) => string;
  /** How a settled request ended, in a few words (`Allowed`, `Skipped`…). */
  outcome(resolution: Extract<StoredResolution, { type: K }>): string;
  /** Whether a person answers it through an answer link (src/notify/links.ts) and so gets it by mail. */
  readonly answeredByLink: boolean;
  /** The answer link's one-click choices for a request, on the answer page `page`. */
  oneClickLinks(request: Extract<ActionRequest, { kind: K }>, page: string): OneClickLinks;
  /**
   * Whether its call's AI SDK tool part is an approval (`approval-requested` while it waits); the inverse
   * of the kind's `answerFromUiPart`.
   */
  readonly aiSdkApproval: boolean;
  /** The title of its call's AI SDK tool part, if the part has one. */
  aiSdkTitle: (action: ActionViewOf<K>) => string | undefined;
}

/** A text on one line, cut to `max` characters. */
function oneLine(text: string, max = 90): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max, '…');
}

const approval: KindPresentation<'approval'> = {
  title: (action) => action.title || action.toolName,
  summary: (action) => `Approve? ${oneLine(action.title ?? action.toolName)}`,
  outcome: (resolution) => (resolution.decision === 'allow' ? (resolution.approvedArgs !== undefined ? 'Allowed with changes' : 'Allowed') : 'Denied'),
  answeredByLink: true,
  oneClickLinks: (_request, page) => ({ allow: `${page}?choice=allow`, deny: `${page}?choice=deny` }),
  aiSdkApproval: true,
  aiSdkTitle: (action) => action.title || undefined,
};

const question: KindPresentation<'question'> = {
  title: (action) => (action.questions && action.questions.length > 1 ? `${action.questions.length} questions` : (action.questions?.[0]?.prompt ?? 'Question')),
  summary(action) {
    const questions = action.questions ?? [];
    const more = questions.length > 1 ? ` (+${questions.length - 1} more)` : '';
    return `Question: ${oneLine(questions[0]?.prompt ?? 'an answer is needed')}${more}`;
  },
  outcome: (resolution) => ('dismiss' in resolution ? 'Dismissed' : 'skip' in resolution ? 'Skipped' : 'Answered'),
  answeredByLink: true,
  oneClickLinks(request, page) {
    const options: Record<string, Record<string, string>> = {};
    for (const asked of request.questions) {
      if (!asked.options?.length) continue;
      options[asked.id] = Object.fromEntries(asked.options.map((option) => [option.value, `${page}?${new URLSearchParams({ q: asked.id, v: option.value })}`]));
    }
    return Object.keys(options).length > 0 ? { options } : {};
  },
  aiSdkApproval: false,
  aiSdkTitle: () => undefined,
};

const clientTool: KindPresentation<'client_tool'> = {
  title: (action) => action.toolName,
  summary: (action) => `The page runs ${oneLine(action.toolName)}`,
  outcome: (resolution) => ('error' in resolution ? 'The page could not answer' : 'Answered by the page'),
  // Answered by the page that embeds the chat, not by a person following a link.
  answeredByLink: false,
  oneClickLinks: () => ({}),
  aiSdkApproval: false,
  aiSdkTitle: () => undefined,
};

const url: KindPresentation<'url'> = {
  title: (action) => action.title || 'Open a page',
  summary: (action) => `Please open: ${oneLine(action.title ?? action.url ?? 'a page')}`,
  outcome: (resolution) => (resolution.decision === 'accept' ? 'Opened' : resolution.decision === 'decline' ? 'Declined' : 'Not now'),
  answeredByLink: true,
  oneClickLinks: () => ({}),
  aiSdkApproval: false,
  aiSdkTitle: () => undefined,
};

/** Every kind's presentation, by the kind's name. */
export const presentations: { readonly [K in KindName]: KindPresentation<K> } = { approval, question, client_tool: clientTool, url };

/** One member of every kind's presentation, by the kind's name, for `byKind`. */
function each<M extends 'title' | 'summary' | 'aiSdkTitle'>(member: M): { readonly [K in KindName]: KindPresentation<K>[M] } {
  return { approval: approval[member], question: question[member], client_tool: clientTool[member], url: url[member] };
}

/** The action in a few words (its kind's `title`). */
export function titleOf(action: ActionView): string {
  return byKind(each('title'), action);
}

/** What the action asks, in one line (its kind's `summary`). */
export function summaryOf(action: ActionView): string {
  return byKind(each('summary'), action);
}

/** The title of the action's AI SDK tool part, if it has one (its kind's `aiSdkTitle`). */
export function aiSdkTitleOf(action: ActionView): string | undefined {
  return byKind(each('aiSdkTitle'), action);
}

/** How actions of the kind `kind` names read to a person. */
export function presentationOf<K extends KindName>(kind: K): KindPresentation<K> {
  return presentations[kind];
}
