/**
 * Shared by the AG-UI tests: a real `@ag-ui/client` HttpAgent on a thread of a loopback Heed server,
 * that records every event each run streams.
 */
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, Interrupt, ResumeEntry, RunFinishedEvent, RunErrorEvent, Tool } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { expect } from 'vitest';
import type { TestServer } from './http-fixtures.js';

let counter = 0;
export const newThreadId = () => `agui-${Date.now().toString(36)}-${counter++}`;

/** What one run streamed, as the client's subscriber saw it. */
export interface RunSeen {
  events: BaseEvent[];
  types: string[];
  finished?: RunFinishedEvent;
  error?: RunErrorEvent;
  /** The run's interrupts, when it ended on some. */
  interrupts: Interrupt[];
  /** The run failed on the client's side before or while streaming (an HTTP error, a refused input). */
  thrown?: unknown;
}

export function aguiAgent(server: TestServer, options: { agent?: string; token?: string; threadId?: string } = {}) {
  return new HttpAgent({
    url: `${server.url}/api/ag-ui/${options.agent ?? 'support'}`,
    threadId: options.threadId ?? newThreadId(),
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
  });
}

/** Runs the agent once and records what it streamed; never throws. */
export async function run(
  agent: HttpAgent,
  parameters: { resume?: ResumeEntry[]; tools?: Tool[] } = {},
  onEvent?: (event: BaseEvent) => void,
): Promise<RunSeen> {
  const seen: RunSeen = { events: [], types: [], interrupts: [] };
  try {
    await agent.runAgent(parameters, {
      onEvent: ({ event }) => {
        seen.events.push(event);
        seen.types.push(event.type);
        onEvent?.(event);
      },
      onRunFinishedEvent: (params) => {
        seen.finished = params.event;
        if (params.outcome === 'interrupt') seen.interrupts = params.interrupts;
      },
      onRunErrorEvent: ({ event }) => {
        seen.error = event;
      },
    });
  } catch (thrown) {
    seen.thrown = thrown;
  }
  return seen;
}

/** Sends a user message on the agent's thread and runs it. */
export function say(agent: HttpAgent, text: string, parameters: { tools?: Tool[] } = {}): Promise<RunSeen> {
  agent.addMessage({ id: `user-${counter++}`, role: 'user', content: text });
  return run(agent, parameters);
}

/** Every event is one @ag-ui/core's schema takes, and the run is framed as the spec orders it. */
export function expectWellFormed(seen: RunSeen): void {
  for (const event of seen.events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
  expect(seen.types[0]).toBe('RUN_STARTED');
  const last = seen.types.at(-1);
  expect(['RUN_FINISHED', 'RUN_ERROR']).toContain(last);
  if (last === 'RUN_FINISHED') expect(seen.types.slice(-3, -1)).toEqual(['STATE_SNAPSHOT', 'MESSAGES_SNAPSHOT']);
}

/** The tool calls the run streamed, by id: their name and arguments. */
export function streamedCalls(seen: RunSeen): Map<string, { name: string; args: string }> {
  const calls = new Map<string, { name: string; args: string }>();
  for (const event of seen.events as Array<BaseEvent & Record<string, string>>) {
    if (event.type === 'TOOL_CALL_START') calls.set(event.toolCallId, { name: event.toolCallName, args: '' });
    if (event.type === 'TOOL_CALL_ARGS') calls.get(event.toolCallId)!.args += event.delta;
  }
  return calls;
}

/** The text the run streamed. */
export function streamedText(seen: RunSeen): string {
  return (seen.events as Array<BaseEvent & { delta?: string }>)
    .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
    .map((event) => event.delta)
    .join('');
}
