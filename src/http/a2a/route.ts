import { z } from 'zod';
import { HeedError } from '../../errors.js';
import { defineRoute, type Route, type RouteInput } from '../route.js';
import { sseResponse } from '../sse.js';
import { openStream } from '../stream-limits.js';
import { agentCard } from './card.js';
import { A2A_CODES, badParams, notCancelable, rpcFailure, rpcResult, RpcError, type RpcId } from './json-rpc.js';
import {
  checkPushUrl,
  createPushConfig,
  deletePushConfig,
  listPushConfigs,
  pushConfigNotFound,
  pushConfigParams,
  pushConfigRef,
} from './push.js';
import { startSend, type A2aRequestContext, type SentMessage, type Started } from './send.js';
import { buildTask, parseTaskId, readTask, taskId, TERMINAL } from './task.js';
import { untilIdle, watchTask } from './watch.js';

/*
 * The A2A 1.0 endpoint of every agent (docs/a2a.md): its card at `/api/a2a/<agent>/.well-known/agent-card.json`
 * and JSON-RPC at `/api/a2a/<agent>`. A turn is a task, the conversation its context; tasks are read from
 * the store, so any instance answers for any task. Bearer tokens as for the rest of the API.
 */

const agentParams = z.object({ agent: z.string().min(1).max(200) });

const rpcBody = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    method: z
      .string()
      .max(200)
      .describe(
        '`SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`, `SubscribeToTask`, or `CreateTaskPushNotificationConfig`, `GetTaskPushNotificationConfig`, `ListTaskPushNotificationConfigs`, `DeleteTaskPushNotificationConfig`.',
      ),
    params: z.unknown().optional().describe("The method's params in A2A 1.0's JSON form."),
  })
  .describe(
    'A JSON-RPC 2.0 request, with its `id` (a string, a number or null) answered back (anything else is an HTTP 400, as for any route).',
  );

const partSchema = z.looseObject({
  text: z.string().optional(),
  data: z.unknown().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
const sendParams = z.looseObject({
  message: z.looseObject({
    messageId: z.string().min(1).max(200),
    contextId: z.string().optional(),
    taskId: z.string().optional(),
    parts: z.array(partSchema).min(1).max(100),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  configuration: z
    .looseObject({
      returnImmediately: z.boolean().optional(),
      taskPushNotificationConfig: pushConfigParams.omit({ taskId: true }).optional(),
    })
    .optional(),
});
const taskParams = z.looseObject({ id: z.string().min(1).max(400) });

type Input = RouteInput<typeof agentParams, z.ZodUnknown, typeof rpcBody>;

function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ['params', ...issue.path.map(String)].join('.');
    throw badParams(`The params do not fit the method: ${field}: ${issue.message}`, field);
  }
  return parsed.data;
}

export const a2aRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/a2a/:agent/.well-known/agent-card.json',
      operationId: 'a2aAgentCard',
      summary: "The agent's A2A agent card",
      description:
        'Skills from its tools for a signed-in caller (a skill that pauses for the caller carries the JSON Schema of the answer; an anonymous caller sees none), `capabilities.streaming`, ' +
        'and its JSON-RPC interface. `@a2a-js/sdk` resolves it from the base URL `/api/a2a/<agent>/` (with the trailing slash).',
      tag: 'a2a',
      params: agentParams,
      responses: {
        200: { description: 'The agent card (A2A 1.0 JSON).', schema: z.looseObject({ name: z.string() }) },
      },
      errors: ['unauthorized', 'not_found'],
    },
    ({ c, host, params, caller }) => {
      const agent = host.agents.get(params.agent);
      if (!agent) {
        throw new HeedError('not_found', `There is no agent named "${params.agent}".`, {
          details: { agent: params.agent },
        });
      }
      const base = host.notifier.config.publicUrl?.replace(/\/+$/, '') ?? new URL(c.req.url).origin;
      return Response.json(agentCard(agent, base, { tools: caller.userId !== null }));
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/a2a/:agent',
      operationId: 'a2aJsonRpc',
      summary: 'A2A JSON-RPC: SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask',
      description:
        'A task is a turn, its `contextId` the conversation. A paused task is `TASK_STATE_INPUT_REQUIRED` (questions, client tools: answer with a ' +
        'message on the same taskId whose data part is the resolution) or `TASK_STATE_AUTH_REQUIRED` (approvals: a person decides through any ' +
        "Heed surface and the task goes on by itself). Refusals are JSON-RPC errors whose `data[0].metadata.code` is Heed's code; nothing is recorded.",
      tag: 'a2a',
      params: agentParams,
      body: rpcBody,
      responses: {
        200: {
          description: 'A JSON-RPC response; for the streaming methods, SSE whose every `data:` is one.',
          schema: z.looseObject({ jsonrpc: z.literal('2.0') }),
          events:
            'SendStreamingMessage and SubscribeToTask: `{ task }`, then `{ statusUpdate }` / `{ artifactUpdate }` results.',
        },
      },
      errors: ['invalid_request', 'unauthorized', 'not_found', 'payload_too_large', 'rate_limited'],
    },
    async (input: Input) => {
      const { host, params, body } = input;
      if (!host.agents.has(params.agent)) {
        throw new HeedError('not_found', `There is no agent named "${params.agent}".`, {
          details: { agent: params.agent },
        });
      }
      // Not in the schema's shape (that would read as a conversation id), but answered back as JSON-RPC asks.
      const sent = (body as { id?: unknown }).id;
      const id: RpcId = typeof sent === 'string' || typeof sent === 'number' ? sent : null;
      const context: A2aRequestContext = {
        heed: input.heed,
        host,
        caller: input.caller,
        agent: params.agent,
        countNewConversation: input.countNewConversation,
      };
      try {
        return await dispatch(input, context, body.method, body.params, id);
      } catch (thrown) {
        if (!HeedError.isInstance(thrown)) host.logger.error({ method: body.method }, 'heed: an A2A request failed');
        return Response.json(rpcFailure(id, thrown));
      }
    },
  ),
];

async function dispatch(input: Input, context: A2aRequestContext, method: string, params: unknown, id: RpcId) {
  const { heed, host, caller, agent } = context;
  switch (method) {
    case 'SendMessage': {
      const sent = parseParams(sendParams, params);
      const started = await send(context, sent);
      if (!sent.configuration?.returnImmediately) {
        await started.running.catch(() => undefined);
        await untilIdle(host, started.ref.conversationId, input.signal);
      }
      const task = await buildTask(host, agent, started.ref);
      return Response.json(rpcResult(id, { task }));
    }
    case 'SendStreamingMessage': {
      const sent = parseParams(sendParams, params);
      const started = await send(context, sent);
      const after =
        started.firstSeq !== undefined ? started.firstSeq - 1 : await lastSeq(input, started.ref.conversationId);
      return stream(input, id, (send, writer) =>
        watchTask(host, agent, started.ref, after, send, { signal: writer.signal, flow: writer, sendTask: true }),
      );
    }
    case 'GetTask': {
      const { id: taskId } = parseParams(taskParams, params);
      return Response.json(rpcResult(id, await readTask(heed, host, caller, agent, taskId)));
    }
    case 'SubscribeToTask': {
      const { id: taskId } = parseParams(taskParams, params);
      const task = await readTask(heed, host, caller, agent, taskId);
      if (TERMINAL.has(task.status.state)) {
        throw new RpcError(
          A2A_CODES.unsupportedOperation,
          new HeedError(
            'task_not_cancelable',
            `The task ${taskId} has ended (${task.status.state}): there is nothing to follow.`,
          ),
        );
      }
      const ref = parseTaskId(taskId)!;
      const after = await lastSeq(input, ref.conversationId);
      // A subscriber who reads the task through a delegation (or as an approver) is asked again as it moves.
      const recheck = await host.readerRecheck(ref.conversationId, caller);
      return stream(input, id, (send, writer) =>
        watchTask(host, agent, ref, after, send, { signal: writer.signal, flow: writer, sendTask: true, recheck }),
      );
    }
    case 'CancelTask': {
      const { id: taskId } = parseParams(taskParams, params);
      const task = await readTask(heed, host, caller, agent, taskId);
      if (TERMINAL.has(task.status.state))
        throw notCancelable(`The task ${taskId} has ended (${task.status.state}) and cannot be cancelled.`);
      await heed.conversation(task.contextId).cancel({ caller });
      await untilIdle(host, task.contextId, input.signal);
      return Response.json(rpcResult(id, await readTask(heed, host, caller, agent, taskId)));
    }
    case 'CreateTaskPushNotificationConfig':
      return Response.json(rpcResult(id, await createPushConfig(context, parseParams(pushConfigParams, params))));
    case 'GetTaskPushNotificationConfig': {
      const ref = parseParams(pushConfigRef, params);
      const [found] = await listPushConfigs(context, { ...ref, id: ref.id ?? '' });
      if (!found) throw pushConfigNotFound();
      return Response.json(rpcResult(id, found));
    }
    case 'ListTaskPushNotificationConfigs': {
      const { taskId } = parseParams(pushConfigRef, params);
      return Response.json(rpcResult(id, { configs: await listPushConfigs(context, { taskId }), nextPageToken: '' }));
    }
    case 'DeleteTaskPushNotificationConfig': {
      const ref = parseParams(pushConfigRef, params);
      await deletePushConfig(context, { ...ref, id: ref.id ?? '' });
      return Response.json(rpcResult(id, null));
    }
    default:
      throw new RpcError(
        A2A_CODES.methodNotFound,
        new HeedError('invalid_request', `There is no A2A method "${method.slice(0, 100)}" here.`, {
          details: { field: 'method' },
        }),
      );
  }
}

/** Sends the message; a push config in its configuration is stored for the task it started or answered. */
async function send(context: A2aRequestContext, sent: z.output<typeof sendParams>): Promise<Started> {
  const push = sent.configuration?.taskPushNotificationConfig;
  // Checked before anything is sent, so that a refused URL records nothing.
  if (push) checkPushUrl(context, push.url);
  const started = await startSend(context, sent.message as SentMessage);
  if (push) await createPushConfig(context, { ...push, taskId: taskId(started.ref) });
  return started;
}

async function lastSeq(input: Input, conversationId: string): Promise<number> {
  return (await input.host.store.getConversation(conversationId))?.lastEventSeq ?? 0;
}

/** An SSE response whose every `data:` is a JSON-RPC response for `id`; a failure mid-stream is one error response. */
function stream(
  input: Input,
  id: RpcId,
  produce: (send: (result: unknown) => void, writer: Parameters<Parameters<typeof sseResponse>[0]>[0]) => Promise<void>,
): Response {
  // A task's stream is a live stream like any other: it counts against the caller's streams (limits.streamsPerCaller).
  const opened = openStream(input.c, input.caller);
  if (opened instanceof Response) return opened;
  return sseResponse(
    async (writer) => {
      const send = (result: unknown) => writer.send({ data: JSON.stringify(rpcResult(id, result)) });
      try {
        await produce(send, writer);
      } catch (thrown) {
        writer.send({ data: JSON.stringify(rpcFailure(id, thrown)) });
      }
    },
    { ...opened, signal: input.signal },
  );
}
