import type { ActionRecord, Question, QuestionOption } from '../../../types.js';
import { clip } from '../../../kinds/clip.js';
import { commentText } from '../../../kinds/comment-text.js';
import {
  describeResolution,
  summaryOf,
  titleOf,
  type KindName,
  type KindRequest,
  type TypesFor,
} from '../../../kinds/index.js';
import { actionView } from '../../../views.js';
import { linkTarget } from '../../link-target.js';

/**
 * Requests as Slack Block Kit (docs/channels.md): what is posted in the thread while a request waits, what it
 * is updated to once settled, and the modal for typed answers. Pure: no I/O.
 */

// Block Kit JSON, loosely typed: Slack checks it, and the tests check what was posted.
type Block = Record<string, unknown>;

/** What a button carries back: the conversation, the action, and for an option its place in the question. */
export interface ButtonValue {
  c: string;
  a: string;
  o?: number;
}

export const ACTION = {
  allow: 'heed_allow',
  deny: 'heed_deny',
  option: 'heed_option',
  modal: 'heed_modal',
  skip: 'heed_skip',
  open: 'heed_url_open',
  accept: 'heed_url_accept',
  decline: 'heed_url_decline',
} as const;

export const MODAL_CALLBACK = 'heed_answer';

const plain = (text: string, max = 3000) => ({ type: 'plain_text', text: clip(text, max, '…'), emoji: true });
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text: clip(text, 3000, '…') });
const section = (text: string): Block => ({ type: 'section', text: mrkdwn(text) });
const context = (text: string): Block => ({ type: 'context', elements: [mrkdwn(text)] });
/**
 * Slack's mrkdwn treats these three as markup (`<url|text>`, `<!channel>`, `<@U1>`); everything an agent, a
 * caller or a person wrote is escaped, in blocks and in a message's `text` alike.
 */
export const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** `<url|text>` for an address someone else gave: its target cannot end early (`|`, `>` are percent-encoded). */
const link = (url: string) => `<${escape(linkTarget(url))}|${escape(url)}>`;

function button(text: string, actionId: string, value: ButtonValue, style?: 'primary' | 'danger'): Block {
  return {
    type: 'button',
    text: plain(text, 75),
    action_id: actionId,
    value: JSON.stringify(value),
    ...(style ? { style } : {}),
  };
}

/** `<@U123>` for a Slack person (`slack:U123`), the id itself for anyone else. */
export function who(userId: string | null | undefined): string {
  if (!userId) return 'someone';
  return userId.startsWith('slack:') ? `<@${userId.slice('slack:'.length)}>` : escape(userId);
}

function argsBlock(args: unknown): Block {
  const json = JSON.stringify(args ?? {}, null, 2);
  return section(`\`\`\`${clip(json, 2900, '…').replace(/```/g, "'''")}\`\`\``);
}

/** A single single-choice question with options is answered by one click on its option. */
export function answersByClick(questions: Question[]): boolean {
  return clickOptions(questions) !== undefined;
}

/** The options to click, when the questions are answered by one click. */
function clickOptions(questions: Question[]): QuestionOption[] | undefined {
  const options = questions[0]?.options;
  const byClick =
    questions.length === 1 &&
    options !== undefined &&
    options.length > 0 &&
    !questions[0].multiple &&
    options.length <= 20;
  return byClick ? options : undefined;
}

/**
 * How a request of one kind shows in Slack. Each kind with a Slack card of its own is one entry of
 * `slackCards`, keyed by its name; a kind without one (a kind added since, say) gets the generic card from
 * its kind's presentation. No function here switches on the kind.
 */
interface SlackCard<K extends KindName> {
  /** The blocks of the pending request, with its buttons. */
  pending(request: KindRequest<K>, value: ButtonValue, action: ActionRecord): Block[];
  /** What was asked, without buttons, once settled. */
  asked(request: KindRequest<K>): Block[];
  /** How it ended, in one line: who answered what. */
  outcome(resolution: TypesFor<K>['stored'], by: string, request: KindRequest<K>): string;
  /** The notification text of the pending request (what a phone shows). */
  text(request: KindRequest<K>): string;
}

const slackCards: { readonly [K in KindName]?: SlackCard<K> } = {
  approval: {
    pending: (request, value, action) => [
      section(`*Approval needed:* ${escape(request.title)}\n${escape(request.summary)}`),
      argsBlock(request.args),
      {
        type: 'actions',
        block_id: 'heed_decide',
        elements: [button('Allow', ACTION.allow, value, 'primary'), button('Deny', ACTION.deny, value, 'danger')],
      },
      ...deadline(action),
    ],
    asked: (request) => [
      section(`*Approval:* ${escape(request.title)}\n${escape(request.summary)}`),
      argsBlock(request.args),
    ],
    outcome(resolution, by) {
      const comment = resolution.comment ? `: “${escape(commentText(resolution.comment))}”` : '';
      return resolution.decision === 'allow'
        ? `:white_check_mark: Allowed by ${by}${comment}`
        : `:x: Denied by ${by}${comment}`;
    },
    text: (request) => `Approval needed: ${escape(request.title)}`,
  },
  question: {
    pending(request, value, action) {
      const blocks: Block[] = [];
      if (request.preamble) blocks.push(section(escape(request.preamble)));
      for (const question of request.questions) {
        const lines = [`*${escape(question.header)}* ${escape(question.prompt)}`];
        if (question.description) lines.push(`_${escape(question.description)}_`);
        blocks.push(section(lines.join('\n')));
      }
      const elements: Block[] = [];
      const options = clickOptions(request.questions);
      if (options) {
        options.forEach((option, index) => elements.push(button(option.label, ACTION.option, { ...value, o: index })));
        if (request.questions[0].custom !== false) elements.push(button('Other…', ACTION.modal, value));
      } else {
        elements.push(button('Answer…', ACTION.modal, value, 'primary'));
      }
      elements.push(button('Skip', ACTION.skip, value));
      blocks.push({ type: 'actions', block_id: 'heed_answer', elements }, ...deadline(action));
      return blocks;
    },
    asked: (request) => [
      section(
        request.questions.map((question) => `*${escape(question.header)}* ${escape(question.prompt)}`).join('\n'),
      ),
    ],
    outcome(resolution, by, request) {
      if ('dismiss' in resolution) return `Dismissed by ${by}.`;
      if ('skip' in resolution) return `Skipped by ${by}.`;
      const parts = request.questions
        .filter((question) => resolution.answers[question.id]?.length)
        .map(
          (question) =>
            `*${escape(question.header)}:* ${escape(resolution.answers[question.id].map((answer) => labelOf(question, answer)).join(', '))}`,
        );
      return `:speech_balloon: Answered by ${by}${parts.length ? `\n${parts.join('\n')}` : '.'}`;
    },
    text: (request) => `A question: ${escape(request.questions[0]?.prompt ?? '')}`,
  },
  url: {
    pending(request, value, action) {
      const lines = [`*${escape(request.title ?? 'Please open this page')}*`];
      if (request.message) lines.push(escape(request.message));
      // The whole address, so a person sees where the link goes before opening it.
      lines.push(link(request.url));
      return [
        section(lines.join('\n')),
        {
          type: 'actions',
          block_id: 'heed_url',
          elements: [
            {
              type: 'button',
              text: plain('Open', 75),
              action_id: ACTION.open,
              url: request.url,
              value: JSON.stringify(value),
            },
            button('Done', ACTION.accept, value, 'primary'),
            button('Decline', ACTION.decline, value),
          ],
        },
        ...deadline(action),
      ];
    },
    asked: (request) => [section(`*${escape(request.title ?? 'Open this page')}*\n${link(request.url)}`)],
    outcome: (resolution, by) =>
      resolution.decision === 'accept'
        ? `:white_check_mark: Done, says ${by}.`
        : resolution.decision === 'decline'
          ? `:x: Declined by ${by}.`
          : `Cancelled by ${by}.`,
    text: (request) => `Please open ${escape(request.url)}`,
  },
  client_tool: {
    pending: (request) => [
      section(
        `The agent needs the app's web page for \`${escape(request.clientKind)}\`; it cannot be answered in Slack.`,
      ),
    ],
    asked: (request) => [section(`\`${escape(request.clientKind)}\``)],
    outcome: (_resolution, by) => `Answered by ${by}.`,
    text: () => 'A request for the web page',
  },
};

/** The Slack card of the action's kind, if it has one. */
function cardOf(action: ActionRecord): SlackCard<KindName> | undefined {
  // The entry for `action.kind` takes that kind's request and answers, which the action's are; TypeScript cannot follow the two together.
  return slackCards[action.kind] as SlackCard<KindName> | undefined;
}

/** The line that says which child agent asks, for a child conversation's request shown in its parent's thread. */
export function askedByBlocks(from: string | undefined): Block[] {
  return from === undefined ? [] : [context(`Asked by the agent *${escape(from)}*, working for this conversation.`)];
}

/** The blocks of a request as asked, with its buttons (or, once settled, as it ended). */
export function requestBlocks(action: ActionRecord): Block[] {
  if (action.status !== 'pending') return settledBlocks(action);
  const card = cardOf(action);
  return card
    ? card.pending(action.request, { c: action.conversationId, a: action.id }, action)
    : genericRequestBlocks(action);
}

/**
 * A pending request of a kind with no blocks of its own: what it asks, and that nobody can answer it (the
 * app takes no answer for a thread's conversation), so it lapses.
 */
export function genericRequestBlocks(action: ActionRecord): Block[] {
  return [
    ...askedBlocks(action),
    context(
      'This request cannot be answered in Slack, and this conversation takes answers only from Slack: it lapses unanswered.',
    ),
    ...deadline(action),
  ];
}

/** What a request of a kind with no blocks of its own asks: its kind's title and summary. */
function askedBlocks(action: ActionRecord): Block[] {
  const view = actionView(undefined, action);
  return [section(`*${escape(titleOf(view))}*\n${escape(summaryOf(view))}`)];
}

function deadline(action: ActionRecord): Block[] {
  if (!action.expiresAt) return [];
  const seconds = Math.floor(Date.parse(action.expiresAt) / 1000);
  return [context(`Lapses <!date^${seconds}^{date_short_pretty} at {time}|${action.expiresAt}> if nobody answers.`)];
}

/** A one-line account of how a request ended: who answered what. */
export function outcomeText(action: ActionRecord): string {
  // A delegate's answer names both (docs/approvals.md, Delegation).
  const by = who(action.resolvedBy) + (action.answeredFor !== undefined ? ` for ${who(action.answeredFor)}` : '');
  const resolution = action.resolution;
  if (action.status === 'expired' || action.channel === 'timeout')
    return `:hourglass: ${describeResolution(actionView(undefined, action))}.`;
  if (action.status === 'cancelled') return ':no_entry_sign: Cancelled.';
  if (!resolution || resolution.type === 'cancelled') return 'Settled.';
  const card = cardOf(action);
  if (card) return card.outcome(resolution, by, action.request);
  // A kind with nothing of its own here: the settled line its kind gives, the one the inbox and the console show.
  return `${escape(describeResolution(actionView(undefined, action)))}, by ${by}.`;
}

function labelOf(question: Question, value: string): string {
  return question.options?.find((option) => option.value === value)?.label ?? value;
}

/** The request as it ended: what was asked (without buttons), then who answered what. */
export function settledBlocks(action: ActionRecord): Block[] {
  const card = cardOf(action);
  return [...(card ? card.asked(action.request) : askedBlocks(action)), section(outcomeText(action))];
}

/** A reminder in the request's thread (`hitl.remind`): that it still waits, and when it lapses. */
export function reminderText(action: ActionRecord): string {
  const title = escape(titleOf(actionView(undefined, action)));
  if (!action.expiresAt) return `:alarm_clock: Reminder: *${title}* still waits for an answer.`;
  const seconds = Math.floor(Date.parse(action.expiresAt) / 1000);
  return `:alarm_clock: Reminder: *${title}* still waits for an answer. It lapses <!date^${seconds}^{date_short_pretty} at {time}|${action.expiresAt}> if nobody answers.`;
}

/** The notification text of a posted request (what a phone shows). */
export function requestText(action: ActionRecord): string {
  if (action.status !== 'pending') return outcomeText(action);
  const card = cardOf(action);
  return card ? card.text(action.request) : escape(summaryOf(actionView(undefined, action)));
}

// ---------------------------------------------------------------- the modal

/** Private metadata of the modal: which request it answers, and where to say so. */
export interface ModalContext {
  c: string;
  a: string;
  /** The Slack channel id, for an ephemeral reply. */
  ch?: string;
}

const blockId = (index: number) => `q${index}`;
const customBlockId = (index: number) => `q${index}_own`;

function optionItem(option: QuestionOption, index: number) {
  return {
    text: plain(option.label, 75),
    value: String(index),
    ...(option.description ? { description: plain(option.description, 75) } : {}),
  };
}

function initialOptions(question: Question, options: QuestionOption[]) {
  return (question.defaults ?? [])
    .map((value) => options.findIndex((option) => option.value === value))
    .filter((index) => index >= 0)
    .map((index) => optionItem(options[index], index));
}

/** The element of one question: a select or checkboxes for options, the matching input for a typed one. */
function questionElement(question: Question): Block {
  const options = question.options ?? [];
  const initial = question.defaults?.[0];
  const placeholder: Block = question.input?.placeholder ? { placeholder: plain(question.input.placeholder, 150) } : {};
  if (options.length > 0) {
    const items = options.slice(0, 100).map((option, index) => optionItem(option, index));
    const chosen = initialOptions(question, options);
    if (question.multiple) {
      return options.length <= 10
        ? {
            type: 'checkboxes',
            action_id: 'value',
            options: items,
            ...(chosen.length ? { initial_options: chosen } : {}),
          }
        : {
            type: 'multi_static_select',
            action_id: 'value',
            options: items,
            ...(chosen.length ? { initial_options: chosen } : {}),
          };
    }
    return {
      type: 'static_select',
      action_id: 'value',
      options: items,
      ...(chosen.length ? { initial_option: chosen[0] } : {}),
    };
  }
  const type = question.input?.type ?? 'text';
  // No limits are set on the elements: the server checks every rule and its sentences show under the field.
  switch (type) {
    case 'textarea':
      return {
        type: 'plain_text_input',
        action_id: 'value',
        multiline: true,
        ...(initial ? { initial_value: initial } : {}),
        ...placeholder,
      };
    case 'number':
      return {
        type: 'number_input',
        action_id: 'value',
        is_decimal_allowed: true,
        ...(initial ? { initial_value: initial } : {}),
        ...placeholder,
      };
    case 'boolean':
      return {
        type: 'radio_buttons',
        action_id: 'value',
        options: [
          { text: plain('Yes'), value: 'true' },
          { text: plain('No'), value: 'false' },
        ],
        ...(initial ? { initial_option: { text: plain(initial === 'true' ? 'Yes' : 'No'), value: initial } } : {}),
      };
    case 'date':
      return { type: 'datepicker', action_id: 'value', ...(initial ? { initial_date: initial } : {}), ...placeholder };
    case 'email':
      return {
        type: 'email_text_input',
        action_id: 'value',
        ...(initial ? { initial_value: initial } : {}),
        ...placeholder,
      };
    case 'url':
      return {
        type: 'url_text_input',
        action_id: 'value',
        ...(initial ? { initial_value: initial } : {}),
        ...placeholder,
      };
    default:
      return {
        type: 'plain_text_input',
        action_id: 'value',
        ...(initial ? { initial_value: initial } : {}),
        ...placeholder,
      };
  }
}

/** The modal that answers a question action: one input per question (every input type), sent with views.open. */
export function questionModal(action: ActionRecord, where: ModalContext): Block {
  const request = action.request;
  const questions = request.kind === 'question' ? request.questions : [];
  const blocks: Block[] = [];
  if (request.kind === 'question' && request.preamble) blocks.push(section(escape(request.preamble)));
  questions.forEach((question, index) => {
    blocks.push({
      type: 'input',
      block_id: blockId(index),
      // Every field is optional to Slack: a missing required answer is the server's to refuse, in its own words.
      optional: true,
      label: plain(question.prompt, 2000),
      ...(question.description ? { hint: plain(question.description, 2000) } : {}),
      element: questionElement(question),
    });
    if (question.options?.length && question.custom !== false) {
      blocks.push({
        type: 'input',
        block_id: customBlockId(index),
        optional: true,
        label: plain(`${question.header}: or your own answer`, 2000),
        element: { type: 'plain_text_input', action_id: 'value' },
      });
    }
  });
  return {
    type: 'modal',
    callback_id: MODAL_CALLBACK,
    private_metadata: JSON.stringify(where),
    title: plain(questions.length === 1 ? clip(questions[0].header, 24, '…') : 'Answer', 24),
    submit: plain('Send', 24),
    close: plain('Cancel', 24),
    blocks,
  };
}

type StateValue = {
  type?: string;
  value?: string | null;
  selected_option?: { value: string } | null;
  selected_options?: { value: string }[];
  selected_date?: string | null;
};

/** The answers a submitted modal holds, by question id; a field left empty is left out (the server applies defaults). */
export function modalAnswers(
  action: ActionRecord,
  values: Record<string, Record<string, StateValue>>,
): Record<string, string | string[]> {
  const questions = action.request.kind === 'question' ? action.request.questions : [];
  const answers: Record<string, string | string[]> = Object.create(null);
  questions.forEach((question, index) => {
    const own = values[customBlockId(index)]?.value?.value?.trim();
    const state = values[blockId(index)]?.value;
    const option = (picked: string) => question.options?.[Number(picked)]?.value ?? picked;
    let answer: string | string[] | undefined;
    if (state?.selected_options?.length) answer = state.selected_options.map((picked) => option(picked.value));
    else if (state?.selected_option)
      answer = question.options?.length ? option(state.selected_option.value) : state.selected_option.value;
    else if (state?.selected_date) answer = state.selected_date;
    else if (typeof state?.value === 'string' && state.value.trim() !== '') answer = state.value;
    if (own) answer = question.multiple ? [...(Array.isArray(answer) ? answer : answer ? [answer] : []), own] : own;
    if (answer !== undefined) answers[question.id] = answer;
  });
  return answers;
}

/**
 * The server's per-field sentences (`details.fields` of a 400) placed under the modal's fields:
 * `answers.<id or header>` goes to that question's block, anything else to the first one.
 */
export function modalErrors(
  action: ActionRecord,
  fields: { field: string; message: string }[],
  fallback: string,
): Record<string, string> {
  const questions = action.request.kind === 'question' ? action.request.questions : [];
  const errors: Record<string, string> = Object.create(null);
  const add = (block: string, message: string) =>
    (errors[block] = clip(errors[block] ? `${errors[block]} ${message}` : message, 2000, '…'));
  for (const { field, message } of fields) {
    const key = field.startsWith('answers.') ? field.slice('answers.'.length) : '';
    const index = questions.findIndex((question) => question.id === key || question.header === key);
    add(blockId(index >= 0 ? index : 0), message);
  }
  if (Object.keys(errors).length === 0) add(blockId(0), fallback);
  return errors;
}
