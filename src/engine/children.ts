import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AgentConfig } from '../config.js';
import type { Engine } from './engine.js';
import { HeedError } from '../errors.js';
import { tool, type HeedTool } from '../tool.js';
import type { Store } from '../store/store.js';
import type { ConversationRecord, MessageRecord } from '../types.js';
import { openToolCalls } from './open-calls.js';

/*
 * Agents that call agents (docs/concepts.md): an agent's `agents: [...]` offers the model one tool per named
 * agent, `agent_<name>({ task })`; its call runs that agent in a child conversation. The child's id is made
 * from the parent's id and the call's id, so whichever instance starts it (again, after a crash) finds the
 * same one, and a conversation cannot claim a parent it was not started by.
 */

/** The prefix of the tool that calls another agent. */
export const CHILD_TOOL_PREFIX = 'agent_';

/** Where a child conversation was started from, kept in its `metadata.parent`. */
export interface ParentLink {
  conversationId: string;
  toolCallId: string;
  /** 1 for the child of a conversation a person started. */
  depth: number;
}

/** One call of a parent's that runs (or ran) a child. */
export interface ChildCall {
  toolCallId: string;
  agent: string;
  conversationId: string;
}

/** The id of the child conversation a parent's call starts. */
export function childConversationId(parentId: string, toolCallId: string): string {
  return `c_${createHash('sha256').update(`${parentId}\n${toolCallId}`).digest('base64url').slice(0, 32)}`;
}

/** The parent of a child conversation; undefined for one a person (or a program) started. */
export function parentOf(conversation: ConversationRecord): ParentLink | undefined {
  const link = conversation.metadata?.parent;
  if (!link || typeof link !== 'object' || Array.isArray(link)) return undefined;
  const { conversationId, toolCallId, depth } = link as Record<string, unknown>;
  if (typeof conversationId !== 'string' || typeof toolCallId !== 'string' || typeof depth !== 'number')
    return undefined;
  // Only the conversation a call started is its child, whatever a metadata says.
  if (childConversationId(conversationId, toolCallId) !== conversation.id) return undefined;
  return { conversationId, toolCallId, depth };
}

/**
 * The conversations a child works for, its parent first, up to the one a person started (the lead); empty for
 * a conversation that is nobody's child.
 */
export async function ancestorsOf(
  store: Pick<Store, 'getConversation'>,
  conversation: ConversationRecord,
): Promise<ConversationRecord[]> {
  const found: ConversationRecord[] = [];
  // Bounded by the depth this child records, whatever a store holds: that many parents up is the lead.
  const depth = depthOf(conversation);
  for (let link = parentOf(conversation); link && found.length < depth;) {
    const parent = await store.getConversation(link.conversationId);
    if (!parent) break;
    found.push(parent);
    link = parentOf(parent);
  }
  return found;
}

/**
 * The conversation a person started that `conversation` was (at any depth) started from: where its requests
 * are shown when that one lives in a chat thread. The conversation itself when it has no parent.
 */
export async function rootOf(
  store: Pick<Store, 'getConversation'>,
  conversation: ConversationRecord,
): Promise<ConversationRecord> {
  return (await ancestorsOf(store, conversation)).at(-1) ?? conversation;
}

/** How deep a conversation sits: 0 for one a person started. */
export function depthOf(conversation: ConversationRecord): number {
  return parentOf(conversation)?.depth ?? 0;
}

/** The agent a tool call runs, when the tool is one of `agent`'s `agent_<name>` tools. */
export function childAgentOf(agent: AgentConfig, toolName: string): string | undefined {
  if (!toolName.startsWith(CHILD_TOOL_PREFIX)) return undefined;
  const name = toolName.slice(CHILD_TOOL_PREFIX.length);
  return agent.agents?.includes(name) ? name : undefined;
}

/** A parent's calls of other agents, among `calls` (the open ones of a step, or all its messages'). */
function childCallsOf(
  agent: AgentConfig | undefined,
  parentId: string,
  calls: { toolCallId: string; toolName: string }[],
): ChildCall[] {
  if (!agent?.agents?.length) return [];
  return calls.flatMap((call) => {
    const name = childAgentOf(agent, call.toolName);
    return name
      ? [{ toolCallId: call.toolCallId, agent: name, conversationId: childConversationId(parentId, call.toolCallId) }]
      : [];
  });
}

/** The calls of other agents the conversation's last step still waits on (no stored result yet). */
export function openChildCalls(
  agent: AgentConfig | undefined,
  conversation: ConversationRecord,
  messages: MessageRecord[],
): ChildCall[] {
  return childCallsOf(agent, conversation.id, openToolCalls(messages)?.calls ?? []);
}

/** Every call of another agent the messages hold, answered or not, in order. */
export function allChildCalls(
  agent: AgentConfig | undefined,
  conversation: ConversationRecord,
  messages: MessageRecord[],
): ChildCall[] {
  const calls = messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === 'tool-call' ? [part] : [])),
  );
  return childCallsOf(agent, conversation.id, calls);
}

const taskInput = z.object({
  task: z.string().min(1).describe('What the agent should do, in full: it sees nothing else of this conversation.'),
});

/** The `agent_<name>` tools an agent is offered, described by each named agent's `description`. */
export function childTools(agent: AgentConfig, agents: ReadonlyMap<string, AgentConfig>): Record<string, HeedTool> {
  const tools: Record<string, HeedTool> = {};
  for (const name of agent.agents ?? []) {
    const child = agents.get(name);
    tools[`${CHILD_TOOL_PREFIX}${name}`] = tool({
      description: child?.description ?? `Ask the agent "${name}" to do a task and answer with its reply.`,
      inputSchema: taskInput,
    }) as HeedTool;
  }
  return tools;
}

/**
 * Refuses, at start, an `agents` list that names an agent the config lacks, and one through which an agent
 * can reach itself (the cycle is named, e.g. `lead → ops → lead`).
 */
export function checkAgentGraph(agents: ReadonlyMap<string, AgentConfig>): void {
  for (const agent of agents.values()) {
    for (const name of agent.agents ?? []) {
      if (!agents.has(name))
        throw new HeedError(
          'invalid_config',
          `The agent "${agent.name}" calls an agent "${name}" that is not configured.`,
          {
            details: { path: `agents.${agent.name}.agents`, agent: name },
          },
        );
    }
  }
  const done = new Set<string>();
  const visit = (name: string, path: string[]): void => {
    const at = path.indexOf(name);
    if (at >= 0) {
      const cycle = [...path.slice(at), name].join(' → ');
      throw new HeedError('invalid_config', `An agent can reach itself through "agents": ${cycle}.`, {
        details: { cycle },
      });
    }
    if (done.has(name)) return;
    for (const next of agents.get(name)?.agents ?? []) visit(next, [...path, name]);
    done.add(name);
  };
  for (const name of agents.keys()) visit(name, []);
}

/**
 * When the sweep looks again at a parent paused on its children, in case the process that ended a child
 * died before it told the parent (src/engine/child-continue.ts): two leases from now.
 */
export function childRecheckAt(engine: Engine): string {
  return new Date(engine.clock().getTime() + engine.leaseMs * 2).toISOString();
}
