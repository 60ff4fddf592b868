import { clip } from '../../kinds/clip.js';
import { oneLine } from '../../kinds/one-line.js';
import { isPlainObject } from '../../kinds/plain-object.js';
import type { JsonObject, JsonValue } from '../../protocol/values.js';
import type { AskedQuestion, StoredResolution } from '../../types.js';
import type { HandlerActionRequest } from '../handler-types.js';

/** An interrupt as LangGraph reports it in a state snapshot's tasks. */
export interface GraphInterrupt {
  id?: string;
  value?: unknown;
}

/** One Heed action of a pause, in the order of `pendingActions` (the action's `journalIndex`). */
export interface PauseEntry {
  /** Which interrupt of the pause it answers (an index into `Pause.interrupts`). */
  interrupt: number;
  /** For the human-in-the-loop middleware: the action request it stands for. */
  action?: { index: number; name: string; args: JsonValue };
  /** For a question: `text` resumes with the answer itself, `questions` with the answers by question id. */
  question?: { shape: 'text' | 'questions'; multiple: string[] };
}

/** A paused run as the adapter keeps it until every action of it is answered. */
export interface Pause {
  interrupts: Array<{ id?: string; middleware: boolean }>;
  entries: PauseEntry[];
  /** Answers so far, by entry index. */
  answers: Record<string, StoredResolution>;
}

/** The middleware's decisions, in its own names. */
type DecisionType = 'approve' | 'edit' | 'reject' | 'respond';

/** What a middleware's action request turns into: the hook may set an approval policy on it. */
export interface MiddlewareAction {
  name: string;
  args: JsonValue;
  description?: string;
  allowedDecisions: DecisionType[];
}

const TEXT_ANSWER = 'answer';

/**
 * The human-in-the-loop middleware's request (`humanInTheLoopMiddleware` of `langchain`), in the camelCase
 * of langchain 1.x or the snake_case of the Python one: undefined for any other value.
 */
function middlewareRequest(value: unknown): MiddlewareAction[] | undefined {
  if (!isPlainObject(value)) return undefined;
  const requests = value.actionRequests ?? value.action_requests;
  const configs = value.reviewConfigs ?? value.review_configs;
  if (!Array.isArray(requests) || !Array.isArray(configs)) return undefined;
  return requests.map((request: unknown, index) => {
    const action = isPlainObject(request) ? request : {};
    const name = typeof action.name === 'string' ? action.name : `action ${index + 1}`;
    const config = (configs as unknown[]).find(
      (entry) => isPlainObject(entry) && (entry.actionName ?? entry.action_name) === name,
    ) as Record<string, unknown> | undefined;
    const allowed = config?.allowedDecisions ?? config?.allowed_decisions;
    const description = [action.description, config?.description].find((text) => typeof text === 'string');
    return {
      name,
      args: (action.arguments ?? action.args ?? {}) as JsonValue,
      ...(typeof description === 'string' ? { description } : {}),
      allowedDecisions: Array.isArray(allowed) ? (allowed as DecisionType[]) : ['approve', 'edit', 'reject'],
      ...(config && isPlainObject(config.argumentsSchema ?? config.args_schema)
        ? { argsSchema: (config.argumentsSchema ?? config.args_schema) as JsonObject }
        : {}),
    };
  });
}

/** A question built from any other interrupt value. */
function questionFrom(value: unknown): { request: HandlerActionRequest; question: PauseEntry['question'] } {
  if (isPlainObject(value) && Array.isArray(value.questions)) {
    const questions = value.questions as AskedQuestion[];
    const multiple = questions.filter((question) => question.multiple).map((question) => question.id ?? '');
    return {
      request: {
        kind: 'question',
        ...(typeof value.preamble === 'string' ? { preamble: value.preamble } : {}),
        questions,
      },
      question: { shape: 'questions', multiple },
    };
  }
  const text = [value, ...(isPlainObject(value) ? [value.question, value.prompt, value.message] : [])].find(
    (candidate): candidate is string => typeof candidate === 'string' && candidate.trim() !== '',
  );
  const options =
    isPlainObject(value) && Array.isArray(value.options)
      ? value.options.flatMap((option: unknown) =>
          typeof option === 'string'
            ? [{ label: option }]
            : isPlainObject(option) && typeof option.label === 'string'
              ? [{ label: option.label, ...(typeof option.value === 'string' ? { value: option.value } : {}) }]
              : [],
        )
      : [];
  const prompt = text ?? clip(JSON.stringify(value ?? null), 2000);
  return {
    request: {
      kind: 'question',
      questions: [
        {
          id: TEXT_ANSWER,
          header: 'Answer',
          prompt,
          // Options to pick from when the value offers some, else a text to type.
          ...(options.length > 0 ? { options } : { input: { type: 'text' as const } }),
        },
      ],
    },
    question: { shape: 'text', multiple: [] },
  };
}

/**
 * What a graph's interrupts ask for: one approval per action request of the human-in-the-loop middleware
 * (with its allowed decisions: edits only where `edit` is allowed), one question for any other value.
 */
export function pauseFrom(
  interrupts: GraphInterrupt[],
  decorate: (request: Extract<HandlerActionRequest, { kind: 'approval' }>, action: MiddlewareAction) => void = () => {},
): { pause: Pause; pendingActions: HandlerActionRequest[] } {
  const pause: Pause = { interrupts: [], entries: [], answers: {} };
  const pendingActions: HandlerActionRequest[] = [];
  for (const [interrupt, { id, value }] of interrupts.entries()) {
    const actions = middlewareRequest(value);
    pause.interrupts.push({ ...(id !== undefined ? { id } : {}), middleware: actions !== undefined });
    if (!actions) {
      const { request, question } = questionFrom(value);
      pendingActions.push(request);
      pause.entries.push({ interrupt, question });
      continue;
    }
    for (const [index, action] of actions.entries()) {
      const description = action.description?.trim();
      const request: Extract<HandlerActionRequest, { kind: 'approval' }> = {
        kind: 'approval',
        title: description ? oneLine(description.split('\n')[0]) : `Run ${action.name}?`,
        ...(description ? { summary: description } : {}),
        toolName: action.name,
        args: action.args,
      };
      // Edits only where the middleware takes them: against its schema, else any object.
      if (action.allowedDecisions.includes('edit')) {
        request.argsSchema = (action as { argsSchema?: JsonObject }).argsSchema ?? { type: 'object' };
      }
      decorate(request, action);
      pendingActions.push(request);
      pause.entries.push({ interrupt, action: { index, name: action.name, args: action.args } });
    }
  }
  return { pause, pendingActions };
}

/** The value each interrupt resumes with, once every entry of the pause is answered. */
export function resumeValues(pause: Pause): unknown[] {
  return pause.interrupts.map((interrupt, index) => {
    const entries = pause.entries
      .map((entry, at) => ({ entry, answer: pause.answers[String(at)] }))
      .filter(({ entry }) => entry.interrupt === index);
    if (interrupt.middleware) {
      const decisions = entries
        .sort((a, b) => (a.entry.action?.index ?? 0) - (b.entry.action?.index ?? 0))
        .map(({ entry, answer }) => decisionFor(answer, entry));
      return { decisions };
    }
    const [{ entry, answer }] = entries;
    return answerFor(answer, entry);
  });
}

/** An approval's answer as the middleware's decision. */
function decisionFor(answer: StoredResolution, entry: PauseEntry): JsonObject {
  if ('decision' in answer && answer.decision === 'allow') {
    if (answer.approvedArgs === undefined || JSON.stringify(answer.approvedArgs) === JSON.stringify(entry.action?.args))
      return { type: 'approve' };
    // `arguments` in langchain 1.x, `args` in the versions before it.
    const edited = { name: entry.action?.name ?? '', arguments: answer.approvedArgs, args: answer.approvedArgs };
    return { type: 'edit', editedAction: edited };
  }
  if ('decision' in answer) {
    const comment = 'comment' in answer ? answer.comment : undefined;
    const message = typeof comment === 'string' ? comment : comment ? JSON.stringify(comment) : undefined;
    return { type: 'reject', ...(message ? { message } : {}) };
  }
  const reason = answer.type === 'cancelled' ? answer.reason : answer.type;
  return { type: 'reject', message: `No decision was made (${reason}).` };
}

/** A question's answer as the graph reads it: the text itself, or the answers by question id; null if declined. */
function answerFor(answer: StoredResolution, entry: PauseEntry): unknown {
  if (!('answers' in answer)) return null;
  if (entry.question?.shape === 'text') return answer.answers[TEXT_ANSWER]?.[0] ?? null;
  const multiple = new Set(entry.question?.multiple ?? []);
  return Object.fromEntries(
    Object.entries(answer.answers).map(([id, values]) => [id, multiple.has(id) ? values : (values[0] ?? null)]),
  );
}
