import type { AgentCapabilities, BaseEvent, RunAgentInput } from '@ag-ui/core';
import { z } from 'zod';
import { HeedError } from '../../errors.js';
import { invalidRequest, toHeedError } from '../errors.js';
import { defineRoute, type Route } from '../route.js';
import { sseResponse } from '../sse.js';
import { openStream } from '../stream-limits.js';
import type { SendAgUi } from './events.js';
import { runAgUi } from './run.js';

/*
 * The AG-UI endpoint (docs/ag-ui.md): `HttpAgent({ url: '/api/ag-ui/<agent>' })` talks to Heed. The thread
 * id is the conversation id. A run sends the input's new user message, or answers the thread's open
 * interrupts (`resume`, or `role: 'tool'` messages for frontend tools), and streams the turn as AG-UI
 * events; a pause ends it with RUN_FINISHED and an interrupt per pending action. @ag-ui/core's schemas and
 * @ag-ui/encoder are loaded when the route is first used, so a server that never serves it never loads them.
 */

type AgUiModules = {
  schemas: typeof import('@ag-ui/core/schemas');
  encoder: typeof import('@ag-ui/encoder');
};
let modules: Promise<AgUiModules> | undefined;
function loadAgUi(): Promise<AgUiModules> {
  modules ??= Promise.all([import('@ag-ui/core/schemas'), import('@ag-ui/encoder')]).then(([schemas, encoder]) => ({
    schemas,
    encoder,
  }));
  return modules;
}

const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,128}$/;
const agentParams = z.object({ agent: z.string().min(1).max(200) });

export const agUiRunBody = z
  .looseObject({
    threadId: z
      .string()
      .describe('The Heed conversation id (1 to 128 letters, digits, `_` or `-`); a new one starts a conversation.'),
    runId: z.string(),
    messages: z
      .array(z.looseObject({ id: z.string(), role: z.string() }))
      .describe(
        "The thread as the client holds it. Only a last `user` message Heed has not recorded is sent; `tool` messages answer the thread's open frontend tool calls.",
      ),
    tools: z
      .array(z.looseObject({ name: z.string() }))
      .optional()
      .describe(
        "Tools the client runs itself: a pending call of one of the agent's client tools named here is left to the client as a frontend tool call.",
      ),
    context: z.array(z.unknown()).optional(),
    state: z.unknown().optional(),
    forwardedProps: z.unknown().optional(),
    resume: z
      .array(
        z.looseObject({
          interruptId: z.string().describe('The action id.'),
          status: z.enum(['resolved', 'cancelled']),
          payload: z
            .unknown()
            .optional()
            .describe(
              "The kind's answer as the HTTP API takes it (with or without `type`); for an approval also `{ approved, editedArgs? }`.",
            ),
        }),
      )
      .optional()
      .describe('Answers to every open interrupt of the thread.'),
  })
  .describe("AG-UI's `RunAgentInput`, checked against @ag-ui/core's own schema.");

const capabilitiesSchema = z.looseObject({
  identity: z.looseObject({ name: z.string() }),
  humanInTheLoop: z.looseObject({ interrupts: z.boolean(), approveWithEdits: z.boolean() }),
});

const streamDescription =
  'AG-UI events as SSE (`data:` lines encoded by @ag-ui/encoder): RUN_STARTED; the turn as TEXT_MESSAGE_START/CONTENT/END, ' +
  'TOOL_CALL_START/ARGS/END and TOOL_CALL_RESULT; then STATE_SNAPSHOT and MESSAGES_SNAPSHOT; then RUN_FINISHED, whose `outcome` ' +
  "is `{ type: 'interrupt', interrupts }` at a pause (one per pending action: `id` = action id, `reason`, `message`, `toolCallId`, " +
  '`responseSchema`, `expiresAt`), or RUN_ERROR with `code` and a readable `message` (a refused resume or message records nothing).';

export const agUiRoutes: Route[] = [
  defineRoute(
    {
      method: 'post',
      path: '/api/ag-ui/:agent',
      operationId: 'agUiRun',
      summary: 'AG-UI endpoint: run the agent on a thread, or resume it from its interrupts',
      description:
        "For `@ag-ui/client`'s `HttpAgent` and CopilotKit. The body is checked against @ag-ui/core's RunAgentInput schema (400 when it is not one). " +
        'Refusals after that are a RUN_ERROR in the stream, with the codes of docs/concepts.md and nothing recorded: a resume that leaves an open interrupt ' +
        'unanswered or a new message while interrupts are open (`action_pending`), an answer its kind does not take (`invalid_resolution`), ' +
        'an expired interrupt (`action_expired`), an interrupt answered otherwise elsewhere (`action_not_pending`, saying who answered), ' +
        'a caller who may not answer (`action_forbidden`). A replayed resume finishes the run without running anything again.',
      tag: 'ag-ui',
      params: agentParams,
      body: agUiRunBody,
      responses: { 200: { description: 'The run as AG-UI events.', events: streamDescription } },
      errors: ['invalid_request', 'unauthorized', 'not_found', 'payload_too_large', 'rate_limited'],
    },
    async ({ c, heed, host, caller, params, body, signal, countNewConversation }) => {
      if (!host.agents.has(params.agent)) {
        throw new HeedError('not_found', `There is no agent named "${params.agent}".`, {
          details: { agent: params.agent },
        });
      }
      const { schemas, encoder } = await loadAgUi();
      const parsed = schemas.RunAgentInputSchema.safeParse(body);
      if (!parsed.success) throw invalidRequest(parsed.error);
      const input = parsed.data as RunAgentInput;
      if (!CONVERSATION_ID.test(input.threadId)) {
        throw new HeedError(
          'invalid_request',
          'The threadId is the conversation id: 1 to 128 letters, digits, _ or -.',
          {
            details: { field: 'body.threadId' },
          },
        );
      }
      // SSE only: the encoder would answer a client that accepts protobuf in protobuf, which Heed does not document.
      const events = new encoder.EventEncoder();
      // A run is a live stream like any other: it counts against the caller's streams (limits.streamsPerCaller).
      const opened = openStream(c, caller);
      if (opened instanceof Response) return opened;
      return sseResponse(
        async (writer) => {
          const send: SendAgUi = (event) => writer.send({ data: sseData(events.encodeSSE(event)) });
          const run = { threadId: input.threadId, runId: input.runId };
          send({ type: 'RUN_STARTED', ...run, protocolVersion: schemas.PROTOCOL_VERSION } as BaseEvent);
          try {
            await runAgUi({ heed, host, caller, agent: params.agent, input, send, writer, countNewConversation });
          } catch (thrown) {
            const error = toHeedError(thrown);
            if (error.code === 'internal_error') console.error('heed: an AG-UI run failed', thrown);
            send({ type: 'RUN_ERROR', message: error.message, code: error.code } as BaseEvent);
          }
        },
        { ...opened, signal },
      );
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/ag-ui/:agent/capabilities',
      operationId: 'agUiCapabilities',
      summary: "The agent's AG-UI capabilities (`AgentCapabilities`), for a client's `getCapabilities()`",
      description:
        'Human in the loop as AG-UI names it: `humanInTheLoop.interrupts` (runs end with interrupts and take `resume`) and ' +
        '`approveWithEdits` (an approval takes `editedArgs`).',
      tag: 'ag-ui',
      params: agentParams,
      responses: { 200: { description: 'The capabilities.', schema: capabilitiesSchema } },
      errors: ['unauthorized', 'not_found'],
    },
    ({ host, params }) => {
      const agent = host.agents.get(params.agent);
      if (!agent) {
        throw new HeedError('not_found', `There is no agent named "${params.agent}".`, {
          details: { agent: params.agent },
        });
      }
      const capabilities: AgentCapabilities = {
        identity: { name: agent.name, type: 'heed', ...(agent.description ? { description: agent.description } : {}) },
        transport: { streaming: true },
        // The model sees the agent's own tools only: a tool the run offers is not given to it (docs/ag-ui.md).
        tools: { supported: true, clientProvided: false },
        state: { snapshots: true, persistentState: true },
        humanInTheLoop: { supported: true, approvals: true, interrupts: true, approveWithEdits: true },
      };
      return Response.json(capabilities);
    },
  ),
];

/** The JSON of one `data:` event as @ag-ui/encoder frames it; Heed's SSE writer frames it again, with its heartbeats and flow control. */
function sseData(framed: string): string {
  return framed.replace(/^data: /, '').replace(/\n+$/, '');
}
