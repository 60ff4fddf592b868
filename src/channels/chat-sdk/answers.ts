import type { KindName, KindRequest } from '../../kinds/index.js';
import type { ActionRecord } from '../../types.js';
import { FIELD, type Choice } from './cards.js';

/**
 * What a person's click or typed answer means for a request (docs/channels.md): a button's choice, a
 * reply's text (Telegram, Discord) or a comment command (GitHub, Linear: `/approve`, `/deny <why>`,
 * `/answer 2`, `/answer qty=3 date=2026-12-24`, `/skip`, `/done`, `/decline`). Pure: the resolution is
 * checked by the normal order like any other answer.
 */

type Resolution = Record<string, unknown>;

/** A form's typed inputs by their id (`answer.<question id>`), as the platform sends them with a click. */
export type FormValues = Record<string, unknown>;

interface KindAnswers<K extends KindName> {
  /** A button's choice, with the typed inputs of the card's form where it has one. */
  click(choice: Choice, request: KindRequest<K>, form: FormValues): Resolution | undefined;
  /** A command (`deny`, `answer`…) and the text after it; `command` is undefined for a reply's plain text. */
  typed(command: string | undefined, rest: string, request: KindRequest<K>): Resolution | undefined;
}

const answers: { readonly [K in KindName]?: KindAnswers<K> } = {
  approval: {
    click(choice, _request, form) {
      if (choice !== 'allow' && choice !== 'deny') return undefined;
      const comment = typed(form, 'comment');
      return { type: 'approval', decision: choice, ...(comment ? { comment } : {}) };
    },
    typed(command, rest) {
      const word = command ?? rest.split(/\s+/)[0]?.toLowerCase();
      const why = command ? rest : rest.slice(word?.length ?? 0).trim();
      if (word === 'approve' || word === 'allow') return { type: 'approval', decision: 'allow' };
      if (word === 'deny') return { type: 'approval', decision: 'deny', ...(why ? { comment: why } : {}) };
      return undefined;
    },
  },
  question: {
    click(choice, request, form) {
      if (choice === 'skip') return { type: 'question', skip: true };
      if (choice === 'form') {
        // A question left empty takes its default (or is refused by the normal order when it has none); a multiple choice's picks come comma-separated.
        const out: Record<string, string | string[]> = Object.create(null);
        for (const question of request.questions) {
          const value = typed(form, question.id);
          if (value) out[question.id] = question.multiple && question.options ? value.split(',') : value;
        }
        return { type: 'question', answers: out };
      }
      const question = request.questions[0];
      const option = choice.startsWith('o') ? question?.options?.[Number(choice.slice(1))] : undefined;
      return question && option ? { type: 'question', answers: { [question.id]: option.value } } : undefined;
    },
    typed(command, rest, request) {
      if (command === 'skip') return { type: 'question', skip: true };
      if (command !== undefined && command !== 'answer') return undefined;
      if (rest === '') return undefined;
      const pairs = namedValues(rest);
      const known = new Map(request.questions.map((question) => [question.id, question]));
      if (pairs && [...pairs.keys()].every((id) => known.has(id))) {
        const out: Record<string, string | string[]> = Object.create(null);
        for (const [id, value] of pairs) out[id] = byOptionNumber(known.get(id)!, value);
        return { type: 'question', answers: out };
      }
      const question = request.questions[0];
      if (request.questions.length !== 1 || !question) return undefined;
      return { type: 'question', answers: { [question.id]: byOptionNumber(question, rest) } };
    },
  },
  url: {
    click: (choice) => (choice === 'accept' || choice === 'decline' ? { type: 'url', decision: choice } : undefined),
    typed(command, rest) {
      const word = command ?? rest.toLowerCase();
      if (word === 'done') return { type: 'url', decision: 'accept' };
      if (word === 'decline') return { type: 'url', decision: 'decline' };
      return undefined;
    },
  },
};

function answersOf(action: ActionRecord): KindAnswers<KindName> | undefined {
  // The entry for `action.kind` takes that kind's request, which the action's is.
  return answers[action.kind] as KindAnswers<KindName> | undefined;
}

/** The answer a button's choice gives, or undefined when the choice is not one of the request's. */
export function clickAnswer(action: ActionRecord, choice: Choice, form: FormValues = {}): Resolution | undefined {
  return answersOf(action)?.click(choice, action.request, form);
}

/** A form input's typed text, trimmed; undefined when it is empty or not text. */
function typed(form: FormValues, name: string): string | undefined {
  const value = Object.hasOwn(form, FIELD + name) ? form[FIELD + name] : undefined;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The commands a comment may start with. */
export const COMMANDS = ['approve', 'allow', 'deny', 'answer', 'skip', 'done', 'decline'] as const;

/** `/deny too much` → `{ command: 'deny', rest: 'too much' }`; undefined when the text is no command. */
export function readCommand(text: string): { command: string; rest: string } | undefined {
  const match = /^\/([a-z]+)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match || !(COMMANDS as readonly string[]).includes(match[1].toLowerCase())) return undefined;
  return { command: match[1].toLowerCase(), rest: (match[2] ?? '').trim() };
}

/**
 * The answer a typed text gives: a command (`/answer 2`), or with `plainText` a reply's words
 * (`deny too much`, `3`, `qty=3 date=2026-12-24`). Undefined when it answers nothing.
 */
export function typedAnswer(action: ActionRecord, text: string, plainText: boolean): Resolution | undefined {
  const kind = answersOf(action);
  if (!kind) return undefined;
  const command = readCommand(text);
  if (command) return kind.typed(command.command, command.rest, action.request);
  return plainText ? kind.typed(undefined, text.trim(), action.request) : undefined;
}

/** `qty=3 date="24 Dec"` as a map; undefined unless every word is `name=value`. */
function namedValues(text: string): Map<string, string> | undefined {
  const found = new Map<string, string>();
  const pattern = /([A-Za-z_][\w.-]*)=(?:"([^"]*)"|(\S+))\s*/gy;
  let match: RegExpExecArray | null;
  let end = 0;
  while ((match = pattern.exec(text)) !== null) {
    found.set(match[1], match[2] ?? match[3]);
    end = pattern.lastIndex;
  }
  return found.size > 0 && end === text.length ? found : undefined;
}

/** `2` picks a question's second option; anything else is the answer as written. */
function byOptionNumber(question: { options?: { value: string }[] }, value: string): string {
  const index = /^\d{1,3}$/.test(value) ? Number(value) - 1 : -1;
  return question.options?.[index]?.value ?? value;
}
