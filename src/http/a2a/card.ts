import type { AgentConfig } from '../../config.js';
import { kinds, type ActionKind } from '../../kinds/index.js';
import type { JsonObject } from '../../types.js';
import { asJsonObject } from '../../protocol/values.js';
import { responseSchema } from '../ag-ui/events.js';

/*
 * An agent's A2A card (docs/a2a.md): its identity, one skill per tool (and one for its questions), the
 * JSON-RPC interface at `/api/a2a/<agent>`, streaming and push notifications. A skill whose tool pauses
 * for the caller's input says in its description how the caller answers: a data part holding the
 * resolution, with the JSON Schema it must match. An anonymous caller's card has no tool skills: a tool's name
 * and description are the agent's internals, not what discovery needs (the interface, streaming, how to
 * answer a question; a client tool's pause carries its answer's schema in the status message anyway).
 */

/** The JSON Schema of the data part that answers an action of this kind (its `type` may be left out). */
export function answerSchema(kind: ActionKind): JsonObject {
  return responseSchema(kind);
}

function answerNote(kind: ActionKind): string {
  return (
    ` When it pauses the task (TASK_STATE_INPUT_REQUIRED), answer with a message on the same taskId whose data part ` +
    `is the resolution, matching this JSON Schema: ${JSON.stringify(answerSchema(kind))}`
  );
}

interface Skill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
  inputModes: string[];
  outputModes: string[];
}

/** The card, with its interface at `baseUrl` + `/api/a2a/<agent>`; a skill per tool only when `tools` (a signed-in caller). */
export function agentCard(agent: AgentConfig, baseUrl: string, { tools }: { tools: boolean }): JsonObject {
  const skills: Skill[] = [];
  const skill = (id: string, description: string, tags: string[]): Skill => ({
    id,
    name: id,
    description,
    tags,
    examples: [],
    inputModes: ['text/plain', 'application/json'],
    outputModes: ['text/plain', 'application/json'],
  });
  skills.push(
    skill(
      'chat',
      `${agent.description ?? `The agent "${agent.name}"`}. Send a text message; each message starts a task (a turn).`,
      ['chat'],
    ),
  );
  for (const [name, tool] of tools ? Object.entries(agent.tools ?? {}) : []) {
    const kind: ActionKind | undefined = tool.client ? kinds.client_tool : undefined;
    const approval = tool.needsApproval
      ? " It may need a person's approval first: the task shows TASK_STATE_AUTH_REQUIRED and goes on by itself once someone decides (in Heed's console, inbox, a link or a channel)."
      : '';
    skills.push(
      skill(name, `${tool.description ?? `The tool ${name}.`}${approval}${kind ? answerNote(kind) : ''}`, [
        'tool',
        ...(tool.needsApproval ? ['approval'] : []),
        ...(tool.client ? ['client-tool'] : []),
      ]),
    );
  }
  if (agent.ask || agent.intake) {
    skills.push(
      skill('ask', `The agent asks the caller questions.${answerNote(kinds.question)}`, [
        'questions',
        'input-required',
      ]),
    );
  }
  const url = `${baseUrl}/api/a2a/${encodeURIComponent(agent.name)}`;
  return {
    name: agent.name,
    description: agent.description ?? `The Heed agent "${agent.name}".`,
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    provider: { organization: 'Heed', url: baseUrl },
    version: '1.0.0',
    documentationUrl: `${baseUrl}/api/docs`,
    capabilities: { streaming: true, pushNotifications: true, extensions: [] },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: "A token from the server's auth config." } },
    },
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: skills.map(asJsonObject),
  };
}
