/**
 * Answers an MCP server's elicitation during a tool call: refuses what must not be asked, lets the
 * `beforeInputRequest` hooks answer, and otherwise asks the person with `ctx.askLive` (a question
 * action for a form, a url action for a page) and turns their answer into `accept`, `decline` or `cancel`.
 */
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { isAllowedUrl } from '../kinds/url.js';
import type { LiveAnswer, ToolContext } from '../tool.js';
import { formContent, formQuestions } from './form.js';
import { secretFields } from './secrets.js';
import type { BeforeInputRequest, ElicitationFormSchema, InputRequest } from './types.js';

/** A form is asked again this many times at most when the answer breaks a rule a question cannot carry. */
const MAX_ASKS = 3;

/** The tool call an elicitation belongs to (calls are one at a time per connection). */
export interface ElicitingCall {
  server: string;
  tool: string;
  ctx: ToolContext;
  /** The server entry's hook first, then the agent's. */
  hooks: BeforeInputRequest[];
  /** Sentences the model reads beside the tool's result. */
  notes: string[];
  /** Set when the person dismissed a form: the call then ends as a dismissal, like any question. */
  dismissed: boolean;
  /** Settles once the call is known to be over elsewhere, so a person's answer can no longer reach it. */
  abandoned: Promise<void>;
  /** The call's clock stops while a person is asked, and starts again after. */
  pauseClock(): void;
  resumeClock(): void;
}

const DECLINE: ElicitResult = { action: 'decline' };
const CANCEL: ElicitResult = { action: 'cancel' };

export async function answerElicitation(
  params: ElicitRequestFormParams | ElicitRequestURLParams,
  call: ElicitingCall,
): Promise<ElicitResult> {
  // After a dismiss the person wants this call stopped: what else it asks is cancelled unseen.
  if (call.dismissed) return CANCEL;
  call.pauseClock();
  try {
    return params.mode === 'url' ? await answerUrl(params, call) : await answerForm(params, call);
  } finally {
    call.resumeClock();
  }
}

async function answerForm(params: ElicitRequestFormParams, call: ElicitingCall): Promise<ElicitResult> {
  const schema = params.requestedSchema as ElicitationFormSchema;
  const secrets = secretFields(schema.properties ?? {});
  if (secrets.length > 0) {
    const names = secrets.map((name) => `"${name}"`).join(', ');
    call.notes.push(
      `${call.server} asked the person to type ${names} into a form. That looks like a password, token or key, and secrets are never asked for in a form (the MCP specification forbids it), so Heed declined without asking. Do not ask the person for it in the chat either; it has to be set up outside this conversation.`,
    );
    return DECLINE;
  }
  const plan = formQuestions(schema, params.message);
  if (!plan.ok) {
    call.notes.push(
      `${call.server} asked for a form Heed cannot show (${plan.problem}), so it was declined without asking.`,
    );
    return DECLINE;
  }
  const hooked = await runHooks(call, { mode: 'form', message: params.message, requestedSchema: schema });
  if (hooked) return hooked;
  if (!call.ctx.interactive) return nobodyToAsk(call);

  const intro = `${call.server} asks: ${params.message}`;
  let problems: string[] = [];
  for (let attempt = 0; attempt < MAX_ASKS; attempt++) {
    const preamble =
      problems.length > 0 ? `${intro}\n\nThe last answer could not be sent: ${problems.join(' ')}` : intro;
    const answer = await waitFor(call, call.ctx.askLive({ kind: 'question', preamble, questions: plan.questions }));
    if (!answer || answer.status !== 'resolved' || answer.resolution?.type !== 'question') return CANCEL;
    const resolution = answer.resolution;
    if ('dismiss' in resolution) {
      call.dismissed = true;
      return CANCEL;
    }
    if ('skip' in resolution) return DECLINE;
    const typed = formContent(plan.fields, resolution.answers);
    if (typed.ok) return { action: 'accept', content: typed.content };
    problems = typed.problems;
  }
  call.notes.push(
    `The person's answers to ${call.server}'s form kept breaking its rules (${problems.join(' ')}), so it was declined.`,
  );
  return DECLINE;
}

async function answerUrl(params: ElicitRequestURLParams, call: ElicitingCall): Promise<ElicitResult> {
  if (!isAllowedUrl(params.url)) {
    call.notes.push(
      `${call.server} asked the person to open ${JSON.stringify(params.url)}, which is not an http or https address, so Heed declined without asking.`,
    );
    return DECLINE;
  }
  const hooked = await runHooks(call, { mode: 'url', message: params.message, url: params.url });
  if (hooked) return { action: hooked.action };
  if (!call.ctx.interactive) return nobodyToAsk(call);
  const answer = await waitFor(
    call,
    call.ctx.askLive({
      kind: 'url',
      url: params.url,
      title: `${call.server} asks you to open a page`,
      message: params.message,
    }),
  );
  if (!answer || answer.status !== 'resolved' || answer.resolution?.type !== 'url') return CANCEL;
  return { action: answer.resolution.decision };
}

function nobodyToAsk(call: ElicitingCall): ElicitResult {
  call.notes.push(
    `${call.server} wanted to ask the person something, but nobody can answer here, so Heed declined. Go on without it.`,
  );
  return DECLINE;
}

type RequestBody = { message: string } & (
  { mode: 'form'; requestedSchema: ElicitationFormSchema } | { mode: 'url'; url: string }
);

async function runHooks(call: ElicitingCall, body: RequestBody): Promise<ElicitResult | undefined> {
  const request = {
    server: call.server,
    tool: call.tool,
    conversationId: call.ctx.conversationId,
    caller: call.ctx.caller,
    ...body,
  } as InputRequest;
  for (const hook of call.hooks) {
    let reply;
    try {
      reply = await hook(request);
    } catch (error) {
      call.notes.push(
        `A beforeInputRequest hook failed on ${call.server}'s request (${error instanceof Error ? error.message : String(error)}), so it was cancelled.`,
      );
      return CANCEL;
    }
    if (!reply) continue;
    if (reply.action === 'accept')
      return reply.content && body.mode === 'form'
        ? { action: 'accept', content: reply.content }
        : { action: 'accept' };
    return { action: reply.action };
  }
  return undefined;
}

/** The person's answer, or null when the call was found to be over elsewhere first. */
function waitFor(call: ElicitingCall, asked: Promise<LiveAnswer>): Promise<LiveAnswer | null> {
  return Promise.race([asked, call.abandoned.then(() => null)]);
}
