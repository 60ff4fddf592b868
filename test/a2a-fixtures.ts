/**
 * Shared by the A2A tests: the real `@a2a-js/sdk` client, resolved from an agent's card on a loopback Heed
 * server, with a bearer token on every request (the card's too), and small builders of its messages.
 */
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { TestServer } from './http-fixtures.js';

let counter = 0;
const nextId = () => `a2a-msg-${Date.now().toString(36)}-${counter++}`;

/** A client for the agent, made the way an A2A caller makes one: from the base URL (trailing slash) and its card. */
export async function a2aClient(server: TestServer, options: { agent?: string; token?: string } = {}): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init = {}) =>
    fetch(input, {
      ...init,
      headers: {
        ...(init.headers as Record<string, string> | undefined),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
    });
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(`${server.url}/api/a2a/${options.agent ?? 'support'}/`);
}

const part = (content: Part['content'], metadata?: Record<string, unknown>): Part => ({
  content,
  metadata,
  filename: '',
  mediaType: '',
});

export function textPart(text: string): Part {
  return part({ $case: 'text', value: text });
}

export function dataPart(data: unknown, metadata?: Record<string, unknown>): Part {
  return part({ $case: 'data', value: data }, metadata);
}

/** A user message; `taskId`/`contextId` continue a task or a conversation. */
export function userMessage(
  parts: Part[],
  ids: { taskId?: string; contextId?: string; messageId?: string } = {},
): Message {
  return {
    messageId: ids.messageId ?? nextId(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Sends a message (blocking) and returns the task it answers with. */
export async function send(client: Client, message: Message): Promise<Task> {
  const result = await client.sendMessage({
    tenant: '',
    message,
    configuration: undefined,
    metadata: undefined,
  });
  if ('messageId' in result) throw new Error('Heed answers with a task, not a message');
  return result;
}

/** The data of a task's status message's data parts. */
export function statusData(task: Task): Array<Record<string, unknown>> {
  return (task.status?.message?.parts ?? []).flatMap((entry) =>
    entry.content?.$case === 'data' ? [entry.content.value as Record<string, unknown>] : [],
  );
}

/** The text of a task's status message. */
export function statusText(task: Task): string {
  return (task.status?.message?.parts ?? [])
    .flatMap((entry) => (entry.content?.$case === 'text' ? [entry.content.value] : []))
    .join('');
}

export { TaskState };
