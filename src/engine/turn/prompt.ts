import { ASK_TOOL_NAME, askToolDescription, questionsJsonSchema } from '../../kinds/question.js';
import type { AgentConfig } from '../../config.js';
import { inputJsonSchema } from '../../tool.js';
import type { JsonValue, MessageRecord } from '../../types.js';
import { liveMessages } from '../replaced.js';
import type { ModelFunctionTool, ModelPrompt, ModelPromptMessage, ModelToolResultPart } from './model-spec.js';
import { modelToolOutput, type ModelToolOutput } from './tool-output.js';

/** The name of the synthetic tool call that carries an agent's intake questions. */
export const INTAKE_TOOL_NAME = 'intake';

/**
 * Builds what the model is sent from the stored messages. Consecutive tool messages are merged, and
 * a tool call that never got a result (a crash, a cancel) gets one saying so, because providers refuse
 * a call without its result. The prompt is both an AI SDK 6 (v3) and an AI SDK 7 (v4) prompt.
 */
export function buildPrompt(agent: AgentConfig, stored: MessageRecord[]): ModelPrompt {
  // A reply that was made again (regenerate) stays in the record, but the model reads only the new one.
  const messages = liveMessages(stored);
  const prompt: ModelPromptMessage[] = [];
  if (agent.instructions) prompt.push({ role: 'system', content: agent.instructions });

  const answered = new Set<string>();
  // Kept on a result's tool message (src/engine/tool-result.ts): the arguments a person approved instead of the
  // model's, which the call is sent with so the model reads it as approved, and notes it reads after the result.
  const approvedArgs = new Map<string, JsonValue>();
  const notes = new Map<string, string[]>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type !== 'tool-result') continue;
      answered.add(part.toolCallId);
      if (message.metadata?.approvedArgs !== undefined)
        approvedArgs.set(part.toolCallId, message.metadata.approvedArgs as JsonValue);
      const said = message.metadata?.notes;
      if (Array.isArray(said) && said.length > 0) notes.set(part.toolCallId, said as string[]);
    }
  }

  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (message.role === 'user') {
      const content = message.parts.flatMap((part) =>
        part.type === 'text' ? [{ type: 'text' as const, text: part.text }] : [],
      );
      prompt.push({ role: 'user', content });
    } else if (message.role === 'assistant') {
      const content: Extract<ModelPromptMessage, { role: 'assistant' }>['content'] = [];
      const missing: ModelToolResultPart[] = [];
      for (const part of message.parts) {
        if (part.type === 'text') content.push({ type: 'text', text: part.text });
        else if (part.type === 'tool-call') {
          content.push({
            type: 'tool-call',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: approvedArgs.get(part.toolCallId) ?? part.input,
          });
          if (!answered.has(part.toolCallId)) {
            missing.push({
              type: 'tool-result',
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              output: { type: 'error-text', value: 'No result was recorded for this call.' },
            });
          }
        }
      }
      if (content.length > 0) prompt.push({ role: 'assistant', content });
      const results: ModelToolResultPart[] = [];
      while (index + 1 < messages.length && messages[index + 1].role === 'tool') {
        index++;
        for (const part of messages[index].parts) {
          if (part.type === 'tool-result') {
            const output = modelToolOutput(part.output, agent.model?.specificationVersion ?? 'v3');
            const after = notes.get(part.toolCallId);
            results.push({
              type: 'tool-result',
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              output: after ? withNotes(output, after) : output,
            });
          }
        }
      }
      results.push(...missing);
      if (results.length > 0) prompt.push({ role: 'tool', content: results });
    }
  }
  return prompt;
}

/** A result with notes after it, as one text: JSON as the providers would send it, then the notes. */
function withNotes(output: ModelToolOutput, notes: string[]): ModelToolOutput {
  const said = notes.join('\n');
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { ...output, value: `${output.value}\n\n${said}` };
    case 'json':
      return { type: 'text', value: `${JSON.stringify(output.value)}\n\n${said}` };
    case 'content':
      return { ...output, value: [...output.value, { type: 'text', text: said }] };
  }
}

/** An agent's tools offered to the model, by which of the asking ones are offered ("client tools, ask"). */
type ToolLists = Map<`${boolean},${boolean}`, ModelFunctionTool[]>;

const toolListCache = new WeakMap<AgentConfig, ToolLists>();

/**
 * The tools offered to the model: its server tools, and the tools that raise requests (client tools, the
 * ask tool) only where `offers` says their kind can be answered (a turn's `offers`, src/engine/turn/turn.ts).
 */
export function offeredTools(
  agent: AgentConfig,
  offers: (kind: 'client_tool' | 'question') => boolean,
): ModelFunctionTool[] {
  let cached = toolListCache.get(agent);
  if (!cached) {
    const server: ModelFunctionTool[] = [];
    const client: ModelFunctionTool[] = [];
    const ask: ModelFunctionTool[] = [];
    for (const [name, definition] of Object.entries(agent.tools ?? {})) {
      const entry: ModelFunctionTool = {
        type: 'function',
        name,
        description: definition.description,
        inputSchema: inputJsonSchema(definition) as ModelFunctionTool['inputSchema'],
      };
      (definition.client ? client : server).push(entry);
    }
    if (agent.ask) {
      ask.push({
        type: 'function',
        name: ASK_TOOL_NAME,
        description: askToolDescription,
        inputSchema: questionsJsonSchema as ModelFunctionTool['inputSchema'],
      });
    }
    // One list per combination, made once, so a turn's every step sends the same list.
    cached = new Map();
    for (const withClient of [true, false])
      for (const withAsk of [true, false])
        cached.set(`${withClient},${withAsk}`, [...server, ...(withClient ? client : []), ...(withAsk ? ask : [])]);
    toolListCache.set(agent, cached);
  }
  return cached.get(`${offers('client_tool')},${offers('question')}`) ?? [];
}
