import type { ActionsElement, ButtonElement, CardChild, CardElement } from 'chat';
import { clip } from '../../kinds/clip.js';
import { commentText } from '../../kinds/comment-text.js';
import {
  describeResolution,
  summaryOf,
  titleOf,
  type KindName,
  type KindRequest,
  type TypesFor,
} from '../../kinds/index.js';
import type { ActionRecord, InputType, Question, QuestionOption } from '../../types.js';
import { actionView } from '../../views.js';
import { linkTarget } from '../link-target.js';
import { markdownCardText, type CardText } from './escape.js';

/**
 * Requests as Chat SDK cards (docs/channels.md), which each adapter renders natively (Adaptive Cards,
 * Discord components, a Telegram inline keyboard, markdown on GitHub and Linear). Pure: no I/O. A
 * button carries only `<action id>:<choice>` (Telegram allows 64 bytes of callback data).
 */

/** The id of every Heed button; its value says which action and which choice. */
export const BUTTON = 'heed';

/** What a click chose: a decision, skip, a question's option by its place, or a form's typed answers. */
export type Choice = 'allow' | 'deny' | 'skip' | 'accept' | 'decline' | 'form' | `o${number}`;

export function buttonValue(actionId: string, choice: Choice): string {
  return `${actionId}:${choice}`;
}

/** The action and choice of a button's value, when it is one of Heed's. */
export function readButton(value: string | undefined): { actionId: string; choice: Choice } | undefined {
  const match = /^([A-Za-z0-9_-]{1,40}):(allow|deny|skip|accept|decline|form|o\d{1,3})$/.exec(value ?? '');
  return match ? { actionId: match[1], choice: match[2] as Choice } : undefined;
}

/** How a person answers by typing on this platform: said under a request that needs typing. */
export interface TypedAnswers {
  /** `Reply to this message with` (Telegram, Discord) or `Comment` (GitHub, Linear). */
  how: string;
  /** Whether answers are comment commands (`/approve`) rather than a reply's plain text. */
  commands: boolean;
  /** Whether the platform's cards have buttons to click (GitHub and Linear show markdown only). */
  buttons: boolean;
  /** Whether the platform's cards take typed inputs (Teams' Adaptive Cards): typed answers are a form in the card. */
  forms?: boolean;
}

/** A typed input of a request's form, which the platform renders natively (Teams: `Input.Text`, `Input.ChoiceSet`). */
export interface FormField {
  /** The input's id: `answer.<question id>`, or `answer.comment` on an approval. */
  name: string;
  label: string;
  type: InputType | 'choice';
  options?: QuestionOption[];
  multiple?: boolean;
  required?: boolean;
  placeholder?: string;
  /** The value shown at first (a question's defaults, comma-separated). */
  value?: string;
  min?: number | string;
  max?: number | string;
}

/** The prefix of every form input's id, so no question id meets the button's own `actionId` or `value`. */
export const FIELD = 'answer.';

/**
 * The typed inputs of a pending request's card, where the platform has forms: each question not answered by
 * one click (with its options as a choice set), or a comment on an approval. Undefined when there are none.
 */
export function requestForm(action: ActionRecord): FormField[] | undefined {
  if (action.status !== 'pending') return undefined;
  const fields = formOf(action);
  return fields.length > 0 ? fields : undefined;
}

function formOf(action: ActionRecord): FormField[] {
  return cardOf(action)?.form?.(action.request) ?? [];
}

function questionFields(questions: Question[]): FormField[] {
  const byClick = clickOptions(questions);
  return questions.flatMap((question): FormField[] => {
    const label = clip(`${question.header}: ${question.prompt}`, 200, '…');
    const value = question.defaults?.length ? question.defaults.join(',') : undefined;
    if (question.options?.length) {
      // One click answers it; a typed answer of its own is still possible unless the question forbids it.
      if (byClick)
        return question.custom === false
          ? []
          : [{ name: FIELD + question.id, label: 'Or your own answer', type: 'text' }];
      return [
        {
          name: FIELD + question.id,
          label,
          type: 'choice',
          options: question.options,
          ...(question.multiple ? { multiple: true } : {}),
          ...(value ? { value } : {}),
        },
      ];
    }
    const input = question.input;
    return [
      {
        name: FIELD + question.id,
        label,
        type: input?.type ?? 'text',
        ...(input?.required ? { required: true } : {}),
        ...(input?.placeholder ? { placeholder: input.placeholder } : {}),
        ...(input?.min !== undefined ? { min: input.min } : {}),
        ...(input?.max !== undefined ? { max: input.max } : {}),
        ...(value ? { value } : {}),
      },
    ];
  });
}

const text = (content: string): CardChild => ({ type: 'text', content: clip(content, 3000, '…') });
const button = (label: string, actionId: string, choice: Choice, style?: 'primary' | 'danger'): ButtonElement => ({
  type: 'button',
  id: BUTTON,
  label: clip(label, 75, '…'),
  value: buttonValue(actionId, choice),
  ...(style ? { style } : {}),
});
const actions = (children: ActionsElement['children']): CardChild => ({ type: 'actions', children });

function argsText(args: unknown, e: CardText): CardChild {
  return text(`\`\`\`json\n${e.code(clip(JSON.stringify(args ?? {}, null, 2), 2800, '…'))}\n\`\`\``);
}

/** The options a single single-choice question is answered with by one click (at most 10: one row each). */
export function clickOptions(questions: Question[]): QuestionOption[] | undefined {
  const options = questions[0]?.options;
  const byClick = questions.length === 1 && options !== undefined && options.length > 0 && !questions[0].multiple;
  return byClick && options.length <= 10 ? options : undefined;
}

/** Each kind with a card of its own: keyed by kind, so nothing here switches on one. */
interface ChatCard<K extends KindName> {
  /** Everything an agent, a caller or a person wrote goes through `e` (escape.ts). */
  pending(request: KindRequest<K>, action: ActionRecord, typed: TypedAnswers, e: CardText): CardChild[];
  title(request: KindRequest<K>, e: CardText): string;
  outcome(resolution: TypesFor<K>['stored'], by: string, request: KindRequest<K>, e: CardText): string;
  /** The typed inputs of its card where the platform has forms (`TypedAnswers.forms`). */
  form?(request: KindRequest<K>): FormField[];
}

const cards: { readonly [K in KindName]?: ChatCard<K> } = {
  approval: {
    title: (request, e) => `Approval needed: ${e.title(request.title)}`,
    form: () => [{ name: `${FIELD}comment`, label: 'Comment (optional; sent with Allow or Deny)', type: 'textarea' }],
    pending: (request, action, typed, e) => [
      text(e.text(request.summary)),
      argsText(request.args, e),
      ...(typed.buttons
        ? [actions([button('Allow', action.id, 'allow', 'primary'), button('Deny', action.id, 'deny', 'danger')])]
        : []),
      ...(typed.commands ? [text(`${typed.how} \`/approve\` or \`/deny <why>\`.`)] : []),
    ],
    outcome(resolution, by, _request, e) {
      const comment = resolution.comment ? `: “${e.text(commentText(resolution.comment))}”` : '';
      return resolution.decision === 'allow' ? `✅ Allowed by ${by}${comment}` : `❌ Denied by ${by}${comment}`;
    },
  },
  question: {
    title: (request, e) => (request.questions.length === 1 ? e.title(request.questions[0].header) : 'Questions'),
    form: (request) => questionFields(request.questions),
    pending(request, action, typed, e) {
      const children: CardChild[] = [];
      if (request.preamble) children.push(text(e.text(request.preamble)));
      const options = clickOptions(request.questions);
      // Where the card is a form, each input is labelled with its question: the text would say it twice.
      const asForm = typed.forms && !options;
      request.questions.forEach((question, index) => {
        const listed = (question.options ?? []).map((option, n) => `${n + 1}. ${e.text(option.label)}`).join('\n');
        const id = request.questions.length > 1 ? ` (\`${e.code(question.id)}\`)` : '';
        if (!asForm)
          children.push(
            text(`**${e.text(question.header)}**${id} ${e.text(question.prompt)}${listed ? `\n${listed}` : ''}`),
          );
        if (index === 0 && question.description) children.push(text(e.text(question.description)));
      });
      const buttons: ButtonElement[] = (options ?? []).map((option, n) => button(option.label, action.id, `o${n}`));
      // Where the card is a form, its typed inputs are sent by Submit (the inputs are the platform's: cards.ts has none).
      if (typed.forms && questionFields(request.questions).length > 0)
        buttons.push(button('Submit', action.id, 'form', 'primary'));
      buttons.push(button('Skip', action.id, 'skip'));
      if (typed.buttons) children.push(actions(buttons));
      if (typed.forms) return children;
      const example =
        request.questions.length === 1
          ? options
            ? 'your own answer'
            : 'your answer'
          : request.questions.map((question) => `${question.id}=…`).join(' ');
      children.push(
        text(
          typed.commands
            ? `${typed.how} \`/answer ${request.questions.length === 1 ? (options ? '2' : '…') : example}\`.`
            : `${typed.how} ${request.questions.length === 1 ? example : `\`${example}\``}.`,
        ),
      );
      return children;
    },
    outcome(resolution, by, request, e) {
      if ('dismiss' in resolution) return `Dismissed by ${by}.`;
      if ('skip' in resolution) return `Skipped by ${by}.`;
      const parts = request.questions
        .filter((question) => resolution.answers[question.id]?.length)
        .map(
          (question) =>
            `**${e.text(question.header)}:** ${e.text(resolution.answers[question.id].map((answer) => labelOf(question, answer)).join(', '))}`,
        );
      return `💬 Answered by ${by}${parts.length ? `\n${parts.join('\n')}` : '.'}`;
    },
  },
  url: {
    title: (request, e) => (request.title === undefined ? 'Please open this page' : e.title(request.title)),
    pending: (request, action, typed, e) => [
      ...(request.message ? [text(e.text(request.message))] : []),
      // The whole address, so a person sees where the link goes before opening it (as words: the button opens it).
      text(e.text(request.url)),
      actions([
        { type: 'link-button', label: 'Open', url: linkTarget(request.url) },
        ...(typed.buttons
          ? [button('Done', action.id, 'accept', 'primary'), button('Decline', action.id, 'decline')]
          : []),
      ]),
      ...(typed.commands ? [text(`${typed.how} \`/done\` or \`/decline\`.`)] : []),
    ],
    outcome: (resolution, by) =>
      resolution.decision === 'accept'
        ? `✅ Done, says ${by}.`
        : resolution.decision === 'decline'
          ? `❌ Declined by ${by}.`
          : `Cancelled by ${by}.`,
  },
};

function cardOf(action: ActionRecord): ChatCard<KindName> | undefined {
  // The entry for `action.kind` takes that kind's request and answers, which the action's are.
  return cards[action.kind] as ChatCard<KindName> | undefined;
}

function labelOf(question: Question, value: string): string {
  return question.options?.find((option) => option.value === value)?.label ?? value;
}

/** The line that says which child agent asks, for a child conversation's request shown in its parent's thread. */
function askedBy(from: string | undefined, e: CardText): CardChild[] {
  return from === undefined ? [] : [text(`Asked by the agent ${e.text(from)}, working for this conversation.`)];
}

/**
 * The card of a request waiting for an answer (or, once settled, as it ended); `from`: the child agent that
 * asks, when it is a child conversation's.
 */
export function requestCard(
  action: ActionRecord,
  typed: TypedAnswers,
  by: (userId: string | null) => string,
  e: CardText,
  from?: string,
): CardElement {
  if (action.status !== 'pending') return settledCard(action, by, e, from);
  const card = cardOf(action);
  if (!card) {
    const view = actionView(undefined, action);
    return {
      type: 'card',
      title: e.title(titleOf(view)),
      children: [
        ...askedBy(from, e),
        text(e.text(summaryOf(view))),
        text(
          'This request cannot be answered here, and this conversation takes answers only from here: it lapses unanswered.',
        ),
      ],
    };
  }
  return {
    type: 'card',
    title: clip(card.title(action.request, e), 200, '…'),
    children: [...askedBy(from, e), ...card.pending(action.request, action, typed, e)],
  };
}

/** One line of how a request ended: who answered what. */
export function outcomeText(action: ActionRecord, by: (userId: string | null) => string, e: CardText): string {
  const resolution = action.resolution;
  if (action.status === 'expired' || action.channel === 'timeout')
    return `⌛ ${e.text(describeResolution(actionView(undefined, action)))}.`;
  if (action.status === 'cancelled') return '🚫 Cancelled.';
  if (!resolution || resolution.type === 'cancelled') return 'Settled.';
  const card = cardOf(action);
  if (card) return card.outcome(resolution, by(action.resolvedBy), action.request, e);
  return `${e.text(describeResolution(actionView(undefined, action)))}, by ${by(action.resolvedBy)}.`;
}

/** The request as it ended: what was asked, without buttons, then who answered what. */
export function settledCard(
  action: ActionRecord,
  by: (userId: string | null) => string,
  e: CardText,
  from?: string,
): CardElement {
  const card = cardOf(action);
  const view = actionView(undefined, action);
  const asked = card ? card.title(action.request, e) : e.title(titleOf(view));
  return {
    type: 'card',
    title: clip(asked, 200, '…'),
    children: [...askedBy(from, e), text(e.text(summaryOf(view))), text(outcomeText(action, by, e))],
  };
}

/**
 * A reminder in the request's thread (`hitl.remind`, docs/approvals.md): that it still waits, and when it
 * lapses. Markdown every adapter renders; the time in UTC, as no platform here formats a date for the reader.
 */
export function reminderText(action: ActionRecord): string {
  // Posted as markdown, which the adapter turns into the platform's own: escaped as markdown on every platform.
  const title = markdownCardText.text(clip(titleOf(actionView(undefined, action)), 200, '…'));
  const when = action.expiresAt
    ? ` It lapses at ${action.expiresAt.slice(0, 16).replace('T', ' ')} UTC if nobody answers.`
    : '';
  return `⏰ Reminder: **${title}** still waits for an answer above.${when}`;
}
